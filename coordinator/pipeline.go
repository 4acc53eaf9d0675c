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
	p := c.prepare(s, use)
	e, fresh := c.enqueue(s, msgID, p)
	if !fresh {
		return c.await(ctx, s, e)
	}
	return c.run(s, e, p)
}

// enqueue claims a call id and, for a new call, announces it.
func (c *Coordinator) enqueue(s *Session, msgID string, p prepared) (*callEntry, bool) {
	e, fresh := s.claim(p.use, msgID, p.interrupt())
	if fresh {
		rec := e.record
		s.Events.Append(api.Event{Type: api.EventToolQueued, MessageID: msgID, ToolUseID: p.use.ID, Call: &rec})
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

// prepared is a tool_use after the prepare step (lookup, decode,
// validate). The scheduler needs the decoded input to ask the tool whether
// the call is concurrency safe, so this step runs before scheduling and
// the rest of the pipeline (policy, execute) runs when the call's turn
// comes. A call that failed to prepare carries its outcome and never runs.
type prepared struct {
	use    api.ToolUse
	tool   *Tool
	raw    json.RawMessage // the input after MCP name normalization and coercion
	input  any
	failed *outcome
	// progress is the call's task_progress checklist, taken out of its
	// input; hasProgress says the parameter was there.
	progress    string
	hasProgress bool
	// dialect is how a dialect mapped the call; nil for Cline's names.
	dialect *dialectCall
}

// prepare is the first pipeline step: the dialect's inbound edge (which
// also normalizes MCP names), lookup in the registry, decode and validate.
func (c *Coordinator) prepare(s *Session, use api.ToolUse) prepared {
	p := prepared{use: use}
	d := s.Dialect()
	name, raw, dc, stop := c.translate(d, use)
	if stop != nil {
		p.failed = stop
		return p
	}
	p.dialect = dc
	if dc == nil && name == use.Name {
		// An MCP tool's input is its own arguments; every other Cline
		// tool may carry the conversation's checklist.
		raw, p.progress, p.hasProgress = splitTaskProgress(raw)
	}
	tool, owned := c.registry.lookup(name)
	if dc != nil {
		tool, owned = c.registry.lookupTarget(name)
	}
	switch {
	case !owned:
		out := failure(api.StatusFailed, api.ToolCodeNotOwned,
			fmt.Sprintf("Tool %s is handled by the client, not by toolgate.", name))
		p.failed = &out
		return p
	case tool == nil:
		msg := c.unknownToolMessage(d, use.Name)
		if name == UseMCPTool {
			msg += " (no MCP servers are configured on this toolgate)"
		}
		out := failure(api.StatusUnknownTool, api.ToolCodeUnknownTool, msg)
		p.failed = &out
		return p
	}
	raw = coerceStrings(raw, tool.ParamTypes())
	p.tool, p.raw = tool, raw
	in, err := decodeInput(tool, c.validate, raw)
	if err != nil {
		text := err.Error()
		if d == "" || d == api.DialectCline {
			text = invalidInputText(err)
		}
		out := failure(api.StatusInvalid, api.ToolCodeInvalid, text)
		out.metricTool = tool.Name
		p.failed = &out
		return p
	}
	p.input = in
	return p
}

// concurrencySafe reports whether the call may run beside others. A call
// that failed to prepare touches nothing, so it never holds others back.
func (p prepared) concurrencySafe() bool {
	return p.failed != nil || p.tool.ConcurrencySafe(p.input)
}

// interrupt is what an interrupt does to the call once it runs.
func (p prepared) interrupt() InterruptBehavior {
	if p.tool == nil {
		return InterruptCancel
	}
	return p.tool.Interrupt
}

// toolName is the registered name the call resolved to, or the name the
// model used when there is none.
func (p prepared) toolName() string {
	if p.tool != nil {
		return p.tool.Name
	}
	return p.use.Name
}

// run takes a prepared call through the rest of the pipeline (policy,
// execute), records its end, emits tool.finished and counts it. Whatever
// happens, the call ends with exactly one result.
func (c *Coordinator) run(s *Session, e *callEntry, p prepared) (api.ToolResult, api.CallRecord) {
	use := p.use
	logger := c.logger.With("session_id", s.ID, "tool_use_id", use.ID, "tool", use.Name)

	start := time.Now()
	out := c.pipeline(e.ctx, s, e, p, logger)
	p.dialect.reword(&out)
	dur := time.Since(start)

	res := toToolResult(use.ID, out.result)
	var detail *api.ErrorDetail
	if out.status != api.StatusSucceeded {
		detail = &api.ErrorDetail{Code: out.code, Message: firstText(out.result)}
	}
	rec := s.finish(e, out.status, dur, detail, res)
	s.Events.Append(api.Event{Type: api.EventToolFinished, MessageID: rec.MessageID, ToolUseID: use.ID, Call: &rec, Result: &res})
	if p.hasProgress {
		s.noteTaskProgress(rec.MessageID, use.ID, p.progress)
	}
	c.metrics.observe(out.metricTool, out.status, dur)
	logger.Info("tool call", "status", out.status, "duration_ms", rec.DurationMS)
	return res, rec
}

// pipeline runs the steps after prepare: policy, then execute.
func (c *Coordinator) pipeline(ctx context.Context, s *Session, e *callEntry, p prepared, logger *slog.Logger) outcome {
	if p.failed != nil {
		out := *p.failed
		c.guardLoop(s, p, &out)
		return out
	}
	out := c.checkAndRun(ctx, s, e, p, logger)
	out.metricTool = p.tool.Name
	c.guardLoop(s, p, &out)
	return out
}

// checkAndRun applies the policy stage (ignore rules, mode, permission
// decision, approval) and, when the call may go ahead, executes it.
func (c *Coordinator) checkAndRun(ctx context.Context, s *Session, e *callEntry, p prepared, logger *slog.Logger) outcome {
	stop, g := c.authorize(ctx, s, e, p.tool, p.input, p.raw)
	if stop == nil {
		stop, p, g = c.preToolUse(ctx, s, e, p, g)
	}
	if stop != nil {
		return *stop
	}
	tool, in := p.tool, p.input
	rec, ok := s.start(e)
	if !ok {
		return cancelled(ctx, Result{})
	}
	s.Events.Append(api.Event{Type: api.EventToolStarted, MessageID: rec.MessageID, ToolUseID: rec.ToolUseID, Call: &rec})
	call := &Call{
		ToolUseID: rec.ToolUseID, Name: tool.Name, SessionID: s.ID, Workspace: c.workspace, Logger: logger, Files: s.Files, Jobs: s.Jobs,
	}
	call.Attach(callRuntime{
		Output: func(stream, chunk string) {
			s.Events.Append(api.Event{Type: api.EventToolOutput, MessageID: rec.MessageID, ToolUseID: rec.ToolUseID, Stream: stream, Chunk: chunk})
		},
		Ignored: g.ignored,
		Todos:   s.SetTodos,
		Keep:    func(o KeptOutput) { s.keepOutput(e, o) },
		Await: func(ctx context.Context, req api.InputRequest) (string, error) {
			return c.awaitInput(ctx, s, e, req)
		},
	})
	out := c.execute(ctx, tool, call, in, logger)
	if g.feedback != "" {
		out.result.Content = append(out.result.Content, approvalFeedback(g.feedback))
	}
	c.postToolUse(ctx, s, p, g, &out)
	return out
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
	res, err := tool.Run(ctx, call, in)
	if ctx.Err() != nil {
		return cancelled(ctx, res)
	}
	if err != nil {
		code := api.ToolCodeFailed
		var te *ToolError
		if errors.As(err, &te) {
			code = te.Code
		}
		// A handler that already said everything in its result (Cline's
		// "Command failed with exit code N." for a command) returns an
		// error with no message, for its code only.
		if msg := err.Error(); msg != "" {
			res.Content = append(res.Content, api.TextContent(ClineToolError(msg)))
		}
		res.IsError = true
		return outcome{status: api.StatusFailed, code: code, result: res}
	}
	if res.IsError {
		return outcome{status: api.StatusFailed, code: api.ToolCodeFailed, result: res}
	}
	return outcome{status: api.StatusSucceeded, result: res}
}

// cancelled is the outcome of a call whose context ended, keeping what
// the handler returned before it stopped.
func cancelled(ctx context.Context, res Result) outcome {
	msg := "Cancelled."
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		msg = "Cancelled: " + cause.Error()
	}
	res.Content = append(res.Content, api.TextContent(msg))
	res.IsError = true
	return outcome{status: api.StatusCancelled, code: api.ToolCodeCancelled, result: res}
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
	// A struct, not a map: it marshals without reflection over map keys
	// or sorting them, into the same bytes (the fields are in key order).
	wrapped, err := json.Marshal(mcpCallInput{Arguments: input, ServerName: server, ToolName: tool})
	if err != nil {
		return UseMCPTool, input
	}
	return UseMCPTool, wrapped
}

// mcpCallInput is use_mcp_tool's input as normalizeName builds it.
type mcpCallInput struct {
	Arguments  json.RawMessage `json:"arguments"`
	ServerName string          `json:"server_name"`
	ToolName   string          `json:"tool_name"`
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
		// Cline's ToolResultUtils.pushToolResult says the same.
		content = []api.Content{api.TextContent("(tool did not return anything)")}
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
