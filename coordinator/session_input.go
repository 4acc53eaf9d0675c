package coordinator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// pendingInputs are the interactive calls waiting for an answer, by
// session and tool_use id.
type pendingInputs struct {
	mu      sync.Mutex
	waiting map[[2]string]pendingInput
}

// pendingInput is one call's wait: where its answer goes (buffered, so
// Answer never blocks) and whether it may be accepted without text.
type pendingInput struct {
	ch         chan api.AnswerRequest
	acceptable bool
}

// Errors of Answer, as request-level errors.
var (
	errNotAwaitingInput = &api.Error{Code: api.CodeConflict, Message: "the call is not awaiting input"}
	errAnswerText       = &api.Error{Code: api.CodeValidation, Message: "invalid answer",
		Fields: map[string]string{"text": "must not be empty"}}
	errAcceptWithText = &api.Error{Code: api.CodeValidation, Message: "invalid answer",
		Fields: map[string]string{"accept": "give text or accept, not both"}}
	errNotAcceptable = &api.Error{Code: api.CodeValidation, Message: "invalid answer",
		Fields: map[string]string{"accept": "this call asks for an answer; only attempt_completion may be accepted"}}
)

// awaitInput is AwaitInput for a call of session s.
func (c *Coordinator) awaitInput(ctx context.Context, s *Session, e *callEntry, req api.InputRequest) (api.AnswerRequest, error) {
	key := [2]string{s.ID, e.record.ToolUseID}
	ch := make(chan api.AnswerRequest, 1)
	p := &c.inputs
	p.mu.Lock()
	if p.waiting == nil {
		p.waiting = map[[2]string]pendingInput{}
	}
	p.waiting[key] = pendingInput{ch: ch, acceptable: req.Acceptable}
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
	case answer := <-ch:
		s.setState(e, api.StateRunning, nil)
		return answer, nil
	case <-timer.C:
		return api.AnswerRequest{}, tool.Errorf(api.ToolCodeNoAnswer, "No answer came within %s.", timeout)
	case <-ctx.Done():
		return api.AnswerRequest{}, fmt.Errorf("no answer: %w", context.Cause(ctx))
	}
}

// Answer completes a call in state awaiting_input with the user's text,
// or with an acceptance when the call allows one.
func (c *Coordinator) Answer(s *Session, toolUseID string, req api.AnswerRequest) (api.AnswerResponse, error) {
	switch {
	case req.Accept && req.Text != "":
		return api.AnswerResponse{}, errAcceptWithText
	case !req.Accept && req.Text == "":
		return api.AnswerResponse{}, errAnswerText
	}
	key := [2]string{s.ID, toolUseID}
	p := &c.inputs
	p.mu.Lock()
	w, ok := p.waiting[key]
	if ok && req.Accept && !w.acceptable {
		p.mu.Unlock()
		return api.AnswerResponse{}, errNotAcceptable
	}
	if ok {
		delete(p.waiting, key)
	}
	p.mu.Unlock()
	if !ok {
		if s.HasCall(toolUseID) {
			return api.AnswerResponse{}, errNotAwaitingInput
		}
		return api.AnswerResponse{}, errNoSuchCall
	}
	w.ch <- req
	return api.AnswerResponse{ToolUseID: toolUseID}, nil
}
