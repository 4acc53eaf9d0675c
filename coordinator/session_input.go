package coordinator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
)

// pendingInputs are the interactive calls waiting for an answer, by
// session and tool_use id.
type pendingInputs struct {
	mu      sync.Mutex
	waiting map[[2]string]chan string // buffered: Answer never blocks
}

// Errors of Answer, as request-level errors.
var (
	errNotAwaitingInput = &api.Error{Code: api.CodeConflict, Message: "the call is not awaiting input"}
	errAnswerText       = &api.Error{Code: api.CodeValidation, Message: "invalid answer",
		Fields: map[string]string{"text": "must not be empty"}}
)

// awaitInput is AwaitInput for a call of session s.
func (c *Coordinator) awaitInput(ctx context.Context, s *Session, e *callEntry, req api.InputRequest) (string, error) {
	key := [2]string{s.ID, e.record.ToolUseID}
	ch := make(chan string, 1)
	p := &c.inputs
	p.mu.Lock()
	if p.waiting == nil {
		p.waiting = map[[2]string]chan string{}
	}
	p.waiting[key] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.waiting, key)
		p.mu.Unlock()
	}()

	rec := s.setState(e, api.StateAwaitingInput, nil)
	s.Events.Append(api.Event{Type: api.EventToolAwaitingInput, MessageID: rec.MessageID, ToolUseID: rec.ToolUseID, Call: &rec, Input: &req})
	timeout := c.cfg.inputTimeout()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case text := <-ch:
		s.setState(e, api.StateRunning, nil)
		return text, nil
	case <-timer.C:
		return "", Errorf(api.ToolCodeNoAnswer, "No answer came within %s.", timeout)
	case <-ctx.Done():
		return "", fmt.Errorf("no answer: %w", context.Cause(ctx))
	}
}

// Answer completes a call in state awaiting_input with the user's text.
func (c *Coordinator) Answer(s *Session, toolUseID string, req api.AnswerRequest) (api.AnswerResponse, error) {
	if req.Text == "" {
		return api.AnswerResponse{}, errAnswerText
	}
	p := &c.inputs
	p.mu.Lock()
	ch, ok := p.waiting[[2]string{s.ID, toolUseID}]
	if ok {
		delete(p.waiting, [2]string{s.ID, toolUseID})
	}
	p.mu.Unlock()
	if !ok {
		if s.HasCall(toolUseID) {
			return api.AnswerResponse{}, errNotAwaitingInput
		}
		return api.AnswerResponse{}, errNoSuchCall
	}
	ch <- req.Text
	return api.AnswerResponse{ToolUseID: toolUseID}, nil
}
