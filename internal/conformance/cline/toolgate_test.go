package cline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/conformance"
)

// block is one content block of a tool result.
type block struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// toolResult is a tool_result as toolgate answers it.
type toolResult struct {
	ToolUseID string  `json:"tool_use_id"`
	Content   []block `json:"content"`
	IsError   bool    `json:"is_error"`
}

// runToolgate posts each call as one assistant message to a session of a
// toolgate serving ws, as a Cline client would (after listing its tools,
// GET /v1/tools?dialect=cline, which it returns too), approving every call that
// waits for approval and answering interactive ones with the call's
// Answer (the run's last answer is "ok"). It returns the results in call
// order.
func runToolgate(ctx context.Context, bin, scratch string, m mode, headless bool, calls []call, ws string) ([][]block, json.RawMessage, error) {
	p, err := conformance.StartToolgateIn(ctx, bin, ws, scratch)
	if err != nil {
		return nil, nil, err
	}
	defer p.Stop()
	tg := clientOf{p.Toolgate}
	var tools json.RawMessage
	if err := tg.Do(ctx, "GET", "/v1/tools?dialect=cline", nil, &tools, http.StatusOK); err != nil {
		return nil, nil, err
	}
	sid, err := tg.NewSession(ctx, map[string]any{})
	if err != nil {
		return nil, nil, err
	}
	model := m.ACPModel
	if headless {
		model = m.CLIModel
	}
	out := make([][]block, len(calls))
	for i, c := range calls {
		use := map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d_%s", i, strings.ReplaceAll(c.ID, "-", "_")),
			"name": c.Tool, "input": c.input(m, model, ws)}
		res, err := tg.post(ctx, sid, use, c.Answer)
		if err != nil {
			return out, tools, fmt.Errorf("%s: %w", c.ID, err)
		}
		out[i] = res.Content
	}
	return out, tools, nil
}

// clientOf is a toolgate as a Cline client drives it.
type clientOf struct{ *conformance.Toolgate }

// post sends one call and, while it runs, approves it or answers it.
func (tg clientOf) post(ctx context.Context, sid string, use map[string]any, answer string) (*toolResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type reply struct {
		res *toolResult
		err error
	}
	done := make(chan reply, 1)
	go func() {
		var resp struct {
			Message struct {
				Content []toolResult `json:"content"`
			} `json:"message"`
		}
		err := tg.Do(ctx, "POST", "/v1/sessions/"+sid+"/messages", map[string]any{"role": "assistant", "content": []any{use}}, &resp, http.StatusOK)
		if err == nil && len(resp.Message.Content) != 1 {
			err = fmt.Errorf("%d results for one call", len(resp.Message.Content))
		}
		if err != nil {
			done <- reply{err: err}
			return
		}
		done <- reply{res: &resp.Message.Content[0]}
	}()
	id := use["id"].(string)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return r.res, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			if err := tg.unblock(ctx, sid, id, answer); err != nil && !errors.Is(err, context.Canceled) {
				return nil, err
			}
		}
	}
}

// unblock approves the call when it awaits approval and answers it when
// it awaits input.
func (tg clientOf) unblock(ctx context.Context, sid, id, answer string) error {
	var rec struct {
		Call struct {
			State string `json:"state"`
		} `json:"call"`
	}
	if err := tg.Do(ctx, "GET", "/v1/sessions/"+sid+"/calls/"+id, nil, &rec, http.StatusOK); err != nil {
		return nil // not recorded yet
	}
	// An approval or answer may come a tick late, when the call has
	// moved on (409): the message's own answer tells how the call ended,
	// so these posts' errors are not the harness's.
	switch rec.Call.State {
	case "awaiting_approval":
		_ = tg.Do(ctx, "POST", "/v1/sessions/"+sid+"/calls/"+id+"/decision", map[string]any{"decision": "approve"}, nil, http.StatusOK)
	case "awaiting_input":
		if answer == "" {
			answer = "ok"
		}
		_ = tg.Do(ctx, "POST", "/v1/sessions/"+sid+"/calls/"+id+"/answer", map[string]any{"text": answer}, nil, http.StatusOK)
	}
	return nil
}
