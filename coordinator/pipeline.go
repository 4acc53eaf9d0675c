package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/toolgate/toolgate/api"
)

// outcome is how one call ended, before it becomes a tool_result.
type outcome struct {
	status api.CallStatus
	code   string // empty on success
	result Result
	// metricTool is the bounded name the call is counted under.
	metricTool string
}

func failure(status api.CallStatus, code, msg string) outcome {
	return outcome{status: status, code: code, result: Result{Content: []api.Content{api.TextContent(msg)}, IsError: true}}
}

// Execute runs one tool_use in a session and returns its tool_result and
// call record. A tool_use id the session already knows is not run again:
// the earlier call's result is returned, after waiting for it if needed.
func (c *Coordinator) Execute(ctx context.Context, s *Session, msgID string, use api.ToolUse) (api.ToolResult, api.CallRecord) {
	e, fresh := c.enqueue(s, msgID, use)
	if !fresh {
		return c.await(ctx, s, e)
	}
	return c.run(s, e, use)
}

// enqueue claims a call id and, for a new call, announces it.
func (c *Coordinator) enqueue(s *Session, msgID string, use api.ToolUse) (*callEntry, bool) {
	e, fresh := s.claim(use, msgID)
	if fresh {
		rec := e.record
		s.Events.Append(api.Event{Type: api.EventToolQueued, MessageID: msgID, ToolUseID: use.ID, Call: &rec})
	}
	return e, fresh
}

// await waits for a call that is already known and returns its result.
func (c *Coordinator) await(ctx context.Context, s *Session, e *callEntry) (api.ToolResult, api.CallRecord) {
	select {
	case <-e.done:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.record.State != api.StateDone {
		rec := e.record
		return api.NewToolResult(rec.ToolUseID, "The call is still running; fetch its result later.", true), rec
	}
	return e.result, e.record
}

// run takes a claimed call through the pipeline, records its end, emits
// tool.finished and counts it. Whatever happens, the call ends with exactly
// one result.
func (c *Coordinator) run(s *Session, e *callEntry, use api.ToolUse) (api.ToolResult, api.CallRecord) {
	logger := c.logger.With("session_id", s.ID, "tool_use_id", use.ID, "tool", use.Name)
	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	s.setCancel(e, cancel)

	start := time.Now()
	out := c.pipeline(ctx, s, e, use, logger)
	dur := time.Since(start)

	res := toToolResult(use.ID, out.result)
	rec := e.record
	rec.Status = out.status
	rec.DurationMS = float64(dur.Microseconds()) / 1000
	if out.status != api.StatusSucceeded {
		rec.Error = &api.ErrorDetail{Code: out.code, Message: firstText(out.result)}
	}
	s.finish(e, rec, res)
	rec.State = api.StateDone
	s.Events.Append(api.Event{Type: api.EventToolFinished, MessageID: rec.MessageID, ToolUseID: use.ID, Call: &rec, Result: &res})
	c.metrics.observe(out.metricTool, out.status, dur)
	logger.Info("tool call", "status", out.status, "duration_ms", rec.DurationMS)
	return res, rec
}

// pipeline: lookup, decode and validate, policy, execute.
func (c *Coordinator) pipeline(ctx context.Context, s *Session, e *callEntry, use api.ToolUse, logger *slog.Logger) outcome {
	name, input := normalizeName(use.Name, use.Input)
	tool, owned := c.registry.lookup(name)
	switch {
	case !owned:
		return failure(api.StatusFailed, api.ToolCodeNotOwned,
			fmt.Sprintf("Tool %s is handled by the client, not by toolgate.", name))
	case tool == nil:
		msg := "No handler registered for tool: " + use.Name
		if name == UseMCPTool {
			msg += " (no MCP servers are configured on this toolgate)"
		}
		return failure(api.StatusUnknownTool, api.ToolCodeUnknownTool, msg)
	}
	out := c.checkAndRun(ctx, s, e, tool, input, logger)
	out.metricTool = tool.Name
	return out
}

func (c *Coordinator) checkAndRun(ctx context.Context, s *Session, e *callEntry, tool *Tool, raw json.RawMessage, logger *slog.Logger) outcome {
	in, err := decodeInput(tool, c.validate, raw)
	if err != nil {
		return failure(api.StatusInvalid, api.ToolCodeInvalid, err.Error())
	}
	if tool.Writes && s.Mode() == api.ModePlan {
		return failure(api.StatusDenied, api.ToolCodePlanMode, fmt.Sprintf(
			"Tool %s is not available in plan mode because it changes files. Switch the session to act mode to use it.", tool.Name))
	}
	now := time.Now().UTC()
	rec := s.setState(e, api.StateRunning, &now)
	s.Events.Append(api.Event{Type: api.EventToolStarted, MessageID: rec.MessageID, ToolUseID: rec.ToolUseID, Call: &rec})
	call := &Call{
		ToolUseID: rec.ToolUseID, Name: tool.Name, SessionID: s.ID, Workspace: c.workspace, Logger: logger, Files: s.Files,
		output: func(stream, chunk string) {
			s.Events.Append(api.Event{Type: api.EventToolOutput, MessageID: rec.MessageID, ToolUseID: rec.ToolUseID, Stream: stream, Chunk: chunk})
		},
		keep: func(o KeptOutput) { s.keepOutput(e, o) },
	}
	return c.execute(ctx, tool, call, in, logger)
}

// execute runs the handler, turning a panic into a failed result so one bad
// handler never takes the server down.
func (c *Coordinator) execute(ctx context.Context, tool *Tool, call *Call, in any, logger *slog.Logger) (out outcome) {
	defer func() {
		if p := recover(); p != nil {
			logger.Error("tool handler panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			out = failure(api.StatusFailed, api.ToolCodePanic, fmt.Sprintf("Tool %s failed unexpectedly (internal error).", tool.Name))
		}
	}()
	res, err := tool.run(ctx, call, in)
	if cause := context.Cause(ctx); ctx.Err() != nil {
		msg := "Cancelled: " + cause.Error()
		if errors.Is(cause, context.Canceled) {
			msg = "Cancelled."
		}
		res.Content = append(res.Content, api.TextContent(msg))
		res.IsError = true
		return outcome{status: api.StatusCancelled, code: api.ToolCodeCancelled, result: res}
	}
	if err != nil {
		code := api.ToolCodeFailed
		var te *ToolError
		if errors.As(err, &te) {
			code = te.Code
		}
		res.Content = append(res.Content, api.TextContent(err.Error()))
		res.IsError = true
		return outcome{status: api.StatusFailed, code: code, result: res}
	}
	if res.IsError {
		return outcome{status: api.StatusFailed, code: api.ToolCodeFailed, result: res}
	}
	return outcome{status: api.StatusSucceeded, result: res}
}

// normalizeName routes mcp__<server>__<tool> to use_mcp_tool, moving the
// server and tool names into the input.
func normalizeName(name string, input json.RawMessage) (string, json.RawMessage) {
	server, tool, ok := ParseMCPName(name)
	if !ok {
		return name, input
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	wrapped, err := json.Marshal(map[string]any{"server_name": server, "tool_name": tool, "arguments": input})
	if err != nil {
		return UseMCPTool, input
	}
	return UseMCPTool, wrapped
}

// toToolResult normalizes a handler's result into a tool_result block.
// Empty text blocks are dropped: the Messages API refuses them.
func toToolResult(id string, r Result) api.ToolResult {
	content := make([]api.Content, 0, len(r.Content))
	for _, c := range r.Content {
		if c.Type != api.TypeText || c.Text != "" {
			content = append(content, c)
		}
	}
	if len(content) == 0 {
		content = []api.Content{api.TextContent("(no output)")}
	}
	return api.ToolResult{Type: api.TypeToolResult, ToolUseID: id, Content: content, IsError: r.IsError}
}

func firstText(r Result) string {
	for i := len(r.Content) - 1; i >= 0; i-- {
		if r.Content[i].Type == api.TypeText {
			return r.Content[i].Text
		}
	}
	return ""
}
