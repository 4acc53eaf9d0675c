package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
	"github.com/toolgate/toolgate/internal/logattrs"
	"github.com/toolgate/toolgate/internal/procs"
)

// outcome is how one call ended, before it becomes a tool_result.
type outcome struct {
	status api.CallStatus
	code   string // empty on success
	result tool.Result
}

func failure(status api.CallStatus, code, msg string) outcome {
	return outcome{status: status, code: code, result: tool.Result{Content: []api.Content{api.TextContent(msg)}, IsError: true}}
}

// callState carries one call through the pipeline: what prepare made of
// the tool_use, what each later stage decided, and how the call ended. It
// is the only state the stages pass on.
type callState struct {
	// prepare
	use  api.ToolUse
	tool *tool.Tool
	raw  json.RawMessage // the input after MCP name normalization and coercion
	// input is the decoded, validated input (replaced by a PreToolUse
	// hook's updatedInput, which the policy then judges).
	input any
	// progress is the call's task_progress checklist, taken out of its
	// input; hasProgress says the parameter was there.
	progress    string
	hasProgress bool
	// dialect is how the session's dialect mapped the call at the inbound
	// edge; nil for Cline's names, which are the registry's own.
	dialect *dialectCall
	// waited is how long the call waited for an approval, left out of
	// its execution time in the metrics.
	waited time.Duration
	// repeats is how many identical calls in a row this one completes,
	// counted when it is queued, so in the order the model emitted them
	// even when calls run side by side.
	repeats int
	// invalidText builds the text of an input that failed validation in a
	// Cline session from the session's count of consecutive mistakes,
	// which enqueue learns in block order; nil otherwise.
	invalidText func(mistakes int) string

	// requestID is the HTTP request that brought the call, for its logs.
	requestID string
	// afterAnswer takes what the handler closes once that request's
	// answer is sent (tool.AfterAnswer); nil without one.
	afterAnswer *tool.AfterAnswer

	// the run, from begin
	s      *Session
	e      *callEntry
	logger *slog.Logger

	// paths caches tool.Paths of input (toolPaths), listed once for the
	// read turn and the policy's subject; cleared when a hook changes the
	// input. Measured by handlers' BenchmarkReadPipeline.
	paths       []string
	pathsListed bool

	// pre-hooks
	hook        hooks.Decision  // what the PreToolUse hooks decided
	hookReason  string          // and why
	hookContext []string        // what PreToolUse hooks add to the tool_result
	hookInput   json.RawMessage // an updatedInput, in the model's words

	// policy
	judged  bool // the policy has judged the current input
	sub     *policy.Subject
	ignored *ignore.Matcher // the ignore rules the call runs under
	ask     *policy.Verdict // the policy asks for approval (until asked)

	// approval
	approved bool // the user approved the call
	// unsandboxed: the call asked to leave the sandbox and the policy put
	// that before the user (unsandboxed.go); approved, it runs unconfined.
	unsandboxed bool
	feedback    string // the user's comment on an approval

	// end is set by the stage that ends the call, or by execute; ran says
	// the handler ran, so post-hooks see its result.
	end *outcome
	ran bool
	// ended is what end points to (stop): the outcome kept in the call's
	// own allocation, not moved to the heap on its own at every call
	// (BenchmarkCallEnd).
	ended outcome
	// room holds the result's blocks when a stage adds one to a result
	// whose slice is full (contentRoom): a read's text and the loop
	// guard's warning, on every repeated read, without a slice of their
	// own (BenchmarkContentRoom). record copies the blocks out.
	room [2]api.Content

	// tracing (metrics_tracing.go): the span of the request that brought the call
	// in, and the call's own span; both empty when tracing is off.
	parent trace.SpanContext
	span   trace.Span
}

// Execute runs one tool_use in a session and returns its tool_result and
// call record. A tool_use id the session already knows is not run again:
// the earlier call's result is returned, after waiting for it if needed.
//
// A message's calls take the same path through the scheduler, which runs
// prepare for each block as it arrives and runCall when the call's turn
// comes. A dialect (the client's names, parameters and result texts) maps
// at the two edges: the tool_use before prepare, the tool_result after
// runCall.
func (c *Coordinator) Execute(ctx context.Context, s *Session, msgID string, use api.ToolUse) (api.ToolResult, api.CallRecord) {
	cs := c.prepare(s, use)
	cs.parent = c.tracer.parentOf(ctx)
	cs.requestID = requestIDFrom(ctx)
	cs.afterAnswer = tool.AfterAnswerFrom(ctx)
	e, fresh := c.enqueue(s, msgID, cs)
	if !fresh {
		return c.await(ctx, s, e)
	}
	return c.runCall(s, e, cs)
}

// runCall is the whole life of a prepared call, one stage a line. A stage
// that ends the call sets cs.end and the stages after it are passed over,
// up to the loop guard and the record: whatever happens, the call ends
// with exactly one result.
//
//	prepare    lookup, MCP name normalization, coercion, decode, validate
//	           (done before scheduling: the scheduler asks the decoded
//	           input whether it is concurrency safe)
//	pre-hooks  PreToolUse hooks: deny, ask, allow, updatedInput, added
//	           context
//	policy     rejection cascade, ignore rules, cwd, plan mode, permission
//	           rules, the session's permission mode and the hooks' decision
//	approval   the user's decision when the policy or a hook asks
//	execute    the handler, with partial output as events
//	reword     the dialect's outbound edge: the result in its model's words
//	post-hooks PostToolUse hooks: added context, block
//	loop guard a warning when the model repeats the same call
//	record     tool_result, call record, tool.finished, metrics, log line
//
// Where PreToolUse hooks run follows the client the session speaks for.
// Claude Code runs them before the permission check
// (code.claude.com/docs/en/hooks, "PreToolUse": after the model builds the
// tool input, before the call is processed), so the policy judges, and the
// user approves, the input that will run. Cline runs them after the
// approval (ToolExecutor.ts handleCompleteBlock: "PreToolUse hooks are now
// executed by individual tool handlers after approval and before the
// actual tool operation"), so a Cline session takes policy and approval
// first, then the hooks, then judges a replaced input again without asking
// a second time.
func (c *Coordinator) runCall(s *Session, e *callEntry, cs *callState) (api.ToolResult, api.CallRecord) {
	// A call without effects, alone, lets GOMAXPROCS stay at one; a
	// command (even one that only reads: its sandbox's hand-over runs
	// goroutines side by side), a write or an MCP or subagent call has
	// the default back before it runs (internal/procs).
	defer procs.Call(!hasEffects(cs.tool)).Done()
	ctx, start := e.ctx, time.Now()
	cs.begin(s, e, c.logger)
	ctx = c.tracer.startCall(ctx, cs)
	if x := c.sessionDialect(s.Dialect()); x != nil && x.HooksAfterApproval {
		c.checkPolicy(cs)
		c.approve(ctx, cs)
		c.preHooks(ctx, cs)
		c.checkPolicy(cs)
		c.approve(ctx, cs)
	} else {
		c.preHooks(ctx, cs)
		c.checkPolicy(cs)
		c.approve(ctx, cs)
	}
	c.execute(ctx, cs)
	c.reword(cs)
	c.postHooks(ctx, cs)
	c.guardLoop(cs)
	return c.record(cs, time.Since(start))
}

// begin binds a prepared call to its session entry and its log fields.
func (cs *callState) begin(s *Session, e *callEntry, logger *slog.Logger) {
	cs.s, cs.e = s, e
	// An array, not a growing slice: With copies the attributes into the
	// logger it makes (BenchmarkWith, ./internal/logattrs/).
	attrs, n := [4]slog.Attr{slog.String("session_id", s.ID), slog.String("tool_use_id", cs.use.ID), slog.String("tool", cs.use.Name)}, 3
	if cs.requestID != "" {
		attrs[n], n = slog.String("request_id", cs.requestID), n+1
	}
	cs.logger = logattrs.With(logger, attrs[:n]...)
}

// running reports whether no stage has ended the call yet.
func (cs *callState) running() bool { return cs.end == nil }

// contentRoom is the call's result's blocks with room for n more: in
// the call's own room when the result's slice is full and the room holds
// them all, else the slice itself (append grows it).
func (cs *callState) contentRoom(n int) []api.Content {
	content := cs.end.result.Content
	if len(content)+n > cap(content) && len(content)+n <= len(cs.room) {
		content = append(cs.room[:0], content...)
	}
	return content
}

// stop ends the call with out; the stages after it are passed over.
func (cs *callState) stop(out outcome) {
	cs.ended = out
	cs.end = &cs.ended
}

// enqueue claims a call id and, for a new call, announces it.
func (c *Coordinator) enqueue(s *Session, msgID string, cs *callState) (*callEntry, bool) {
	e, fresh := s.claim(cs.use, msgID, cs.interrupt())
	if fresh {
		cs.repeats = s.loop.seeCall(cs)
		mistakes := s.mistakes.see(cs)
		if cs.invalidText != nil {
			cs.end.result.Content = []api.Content{api.TextContent(cs.invalidText(mistakes))}
		}
		if cs.tool != nil && cs.tool.CountsReads && cs.input != nil {
			e.readTurn = s.Files.QueueRead(c.readKey(cs))
		}
		// The record copied into the event's allocation (AppendCall).
		s.Events.AppendCall(api.Event{Type: api.EventToolQueued, MessageID: msgID, ToolUseID: cs.use.ID}, &e.record)
		// Kept in block order, so the session holds the checklist the
		// model wrote last even when calls run side by side.
		if cs.hasProgress {
			s.noteTaskProgress(msgID, cs.use.ID, cs.progress)
		}
	}
	return e, fresh
}

// await waits for a call that is already known and returns its result.
func (c *Coordinator) await(ctx context.Context, s *Session, e *callEntry) (api.ToolResult, api.CallRecord) {
	s.mu.Lock()
	done := e.waitLocked()
	s.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.record.State != api.StateDone {
		rec := e.record
		return api.NewToolResult(rec.ToolUseID, "The call is still running; fetch its result later.", true), rec
	}
	return e.result, e.record
}

// prepare is the first stage: the dialect's inbound edge (which also
// normalizes MCP names), lookup in the registry, task_progress taken out,
// string coercion, decode and validate (decodeUse). A call that fails to
// prepare ends here and never runs.
func (c *Coordinator) prepare(s *Session, use api.ToolUse) *callState {
	cs := &callState{use: use}
	d, stop := c.decodeUse(s, use)
	cs.dialect, cs.progress, cs.hasProgress = d.dialect, d.progress, d.hasProgress
	if stop != nil {
		cs.stop(*stop)
		return cs
	}
	t, raw := d.tool, d.raw
	cs.tool, cs.raw = t, raw
	if err := d.err; err != nil {
		text := err.Error()
		if d.dialect == nil {
			texts := c.texts(s.Dialect())
			cs.invalidText = func(mistakes int) string { return invalidInputText(texts, t, raw, err, mistakes) }
			text = cs.invalidText(1)
		}
		cs.stop(failure(api.StatusInvalid, api.ToolCodeInvalid, text))
		return cs
	}
	if out := c.mcpUnreachable(t, d.input, raw); out != nil {
		cs.stop(*out)
		return cs
	}
	cs.input = d.input
	return cs
}

// concurrencySafe reports whether the call may run beside others. A call
// that failed to prepare touches nothing, so it never holds others back.
func (cs *callState) concurrencySafe() bool {
	return cs.end != nil || cs.tool.ConcurrencySafe(cs.input)
}

// interrupt is what an interrupt does to the call once it runs.
func (cs *callState) interrupt() tool.InterruptBehavior {
	if cs.tool == nil {
		return tool.InterruptCancel
	}
	return cs.tool.Interrupt
}

// toolName is the registered name the call resolved to, or the name the
// model used when there is none.
func (cs *callState) toolName() string {
	if cs.tool != nil {
		return cs.tool.Name
	}
	return cs.use.Name
}

// execute is the pipeline stage that marks the call started (tool.started), plugs the session
// into the handler's Call and runs the handler.
func (c *Coordinator) execute(ctx context.Context, cs *callState) {
	if !cs.running() {
		return
	}
	ctx, span := c.tracer.stage(ctx, cs, "execute")
	defer span.End()
	s, e := cs.s, cs.e
	rec, ok := s.start(e)
	if !ok {
		cs.stop(cancelled(ctx, tool.Result{}))
		return
	}
	e.audit.effects = hasEffects(cs.tool)
	e.audit.readsOnly = cs.judged && cs.sub != nil && cs.sub.Command != nil && cs.sub.Command.ReadOnly()
	var recorded func() error // the handler's wait for the start record (record_start.go)
	if cs.tool.AwaitsStart {
		recorded = startRecord(s, e, rec)
	} else if recordStart(s, e, rec) != nil {
		cs.stop(notRecorded())
		return
	}
	// The call, its confined flag and its host (execute_host.go) share
	// one allocation.
	ec := &execCall{Call: tool.Call{
		ToolUseID: rec.ToolUseID, Name: cs.tool.Name, SessionID: s.ID, Workspace: c.workspace, Logger: cs.logger, Files: s.Files,
		SessionDone: s.Done(), ReadTurn: e.readTurn, PlainResults: c.plainResults(s.Dialect()),
		Texts: c.texts(s.Dialect()), SearchAll: c.searchAll(s.Dialect()), CommandEnv: c.commandEnv(s.Dialect()),
	}, c: c, cs: cs, messageID: rec.MessageID}
	call, confined := &ec.Call, &ec.confined
	call.Attach(tool.Runtime{
		Ignored:     cs.ignored,
		Todos:       s.todosFn,
		SandboxHint: c.hintFn,
		Jobs:        s.jobs,
		Recorded:    recorded,
		Host:        ec,
		AfterAnswer: cs.afterAnswer,
	})
	// A call in the registry's vocabulary fails in the session dialect's
	// words; a dialect tool's mapping words its failures itself.
	var texts tool.Texts
	if cs.dialect == nil {
		texts = call.Texts
	}
	out := c.runHandler(ctx, cs.tool, call, cs.input, cs.logger, texts)
	if recorded != nil && recorded() != nil {
		// Its handler waited for the record and ran nothing.
		cs.stop(notRecorded())
		return
	}
	if confined.Load() {
		s.pokePorts() // a command may have left a server listening
	}
	if strings.TrimSpace(cs.feedback) != "" {
		out.result.Content = append(out.result.Content, approvalFeedback(cs.feedback, texts))
	}
	cs.stop(out)
	cs.ran = true
}

// execCall is a running call with what execute learns of it, in one
// allocation (BenchmarkReadPipeline in ./handlers/); it is the call's
// tool.Host (execute_host.go).
type execCall struct {
	tool.Call
	// confined says the call ran something in the sandbox: only such a
	// call can have left a server listening, so the session's ports are
	// read after such calls alone.
	confined atomic.Bool

	c         *Coordinator
	cs        *callState
	messageID string // the message that brought the call, for its output events
}

// runHandler runs the handler, turning a panic into a failed result so one bad
// handler never takes the server down.
// With texts a failure is wrapped as the dialect wraps a tool error; nil
// leaves the plain message, which a dialect's mapping words its own way.
func (c *Coordinator) runHandler(ctx context.Context, t *tool.Tool, call *tool.Call, in any, logger *slog.Logger, texts tool.Texts) (out outcome) {
	defer func() {
		if p := recover(); p != nil {
			logger.Error("tool handler panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			out = failure(api.StatusFailed, api.ToolCodePanic, fmt.Sprintf("Tool %s failed unexpectedly (internal error).", t.Name))
		}
	}()
	res, err := t.Run(ctx, call, in)
	if ctx.Err() != nil {
		return cancelled(ctx, res)
	}
	if err != nil {
		code := api.ToolCodeFailed
		var te *tool.ToolError
		if errors.As(err, &te) {
			code = te.Code
		}
		// A handler that already said everything in its result (Cline's
		// "Command failed with exit code N." for a command) returns an
		// error with no message, for its code only.
		if msg := err.Error(); msg != "" && texts != nil {
			res.Content = append(res.Content, api.TextContent(texts.ToolError(msg)))
		} else if msg != "" {
			res.Content = append(res.Content, api.TextContent(msg))
		}
		res.IsError = true
		return outcome{status: api.StatusFailed, code: code, result: res}
	}
	if res.IsError {
		return outcome{status: api.StatusFailed, code: api.ToolCodeFailed, result: res}
	}
	return outcome{status: api.StatusSucceeded, result: res}
}

// record is the last stage: the outcome becomes the tool_result and the
// finished call record, tool.finished is emitted, the checklist kept, the
// call counted and logged.
func (c *Coordinator) record(cs *callState, dur time.Duration) (api.ToolResult, api.CallRecord) {
	s, use, out := cs.s, cs.use, cs.end
	// The tool_result, its blocks (up to two: a read's text and Cline's
	// note on a repeated read) and the final record share one
	// allocation, which tool.finished points to (BenchmarkRecordStage).
	fin := &finishedCall{}
	fin.res = toToolResult(use.ID, out.result, fin.content[:0])
	var detail *api.ErrorDetail
	if out.status != api.StatusSucceeded {
		detail = &api.ErrorDetail{Code: out.code, Message: firstText(out.result)}
	}
	fin.rec = s.finish(cs.e, out.status, dur, detail, &fin.res)
	s.Events.Append(api.Event{Type: api.EventToolFinished, MessageID: fin.rec.MessageID, ToolUseID: use.ID, Call: &fin.rec, Result: &fin.res})
	// A call is counted under the name its client called (a dialect's
	// tool, else the registered name); one that resolved to no tool under
	// the catch-all series. Its time excludes the wait for a person.
	metricTool := ""
	switch {
	case cs.dialect != nil:
		metricTool = cs.dialect.tool.Name
	case cs.tool != nil:
		metricTool = c.metricLabel(cs, cs.tool.Name)
	}
	c.metrics.observe(metricDialect(s), metricTool, out.status, dur-cs.waited, cs.span)
	c.tracer.endCall(cs, *out)
	// At debug level: the audit log keeps every call, and one more line
	// per call beside the request's was a fifth of a small call's cost
	// (BenchmarkToolUseVsBare; docs/benchmarks.md). Checked before its
	// values are boxed, against the level New read (debugLog).
	if c.debugLog {
		cs.logger.Debug("tool call", "status", out.status, "duration_ms", fin.rec.DurationMS)
	}
	return fin.res, fin.rec
}

// finishedCall is what a call's end hands on: its tool_result, with room
// for the result's first two blocks, and its final record. Nothing
// changes them once made.
type finishedCall struct {
	rec     api.CallRecord
	res     api.ToolResult
	content [2]api.Content
}

// cancelled is the outcome of a call whose context ended, keeping what
// the handler returned before it stopped.
func cancelled(ctx context.Context, res tool.Result) outcome {
	msg := "Cancelled."
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		msg = "Cancelled: " + cause.Error()
	}
	res.Content = append(res.Content, api.TextContent(msg))
	res.IsError = true
	return outcome{status: api.StatusCancelled, code: api.ToolCodeCancelled, result: res}
}

// normalizeName routes mcp__<server>__<tool>, and a dialect's own
// <key><mark><tool> (key: the server's uid or name, resolved by the hub;
// mark: tool.Dialect.MCPNameMark), to use_mcp_tool, moving the server and
// tool names into the input.
func (c *Coordinator) normalizeName(name string, input json.RawMessage, mark string) (string, json.RawMessage) {
	server, mcpTool, ok := ParseMCPName(name)
	if !ok {
		var key string
		if key, mcpTool, ok = parseMarkedMCPName(name, mark); !ok {
			return name, input
		}
		if server, ok = c.mcp.ServerByKey(key); !ok {
			server = key
		}
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	// A struct, not a map: it marshals without reflection over map keys
	// or sorting them, into the same bytes (the fields are in key order).
	wrapped, err := json.Marshal(mcpCallInput{Arguments: input, ServerName: server, ToolName: mcpTool})
	if err != nil {
		return tool.UseMCPTool, input
	}
	return tool.UseMCPTool, wrapped
}

// mcpCallInput is use_mcp_tool's input as normalizeName builds it.
type mcpCallInput struct {
	Arguments  json.RawMessage `json:"arguments"`
	ServerName string          `json:"server_name"`
	ToolName   string          `json:"tool_name"`
}

// toToolResult normalizes a handler's result into a tool_result block,
// its blocks in content (an empty slice, made again when it has too
// little room). Empty text blocks are dropped: the Messages API refuses
// them.
func toToolResult(id string, r tool.Result, content []api.Content) api.ToolResult {
	if cap(content) < len(r.Content) {
		content = make([]api.Content, 0, len(r.Content))
	}
	for _, c := range r.Content {
		if c.Type != api.TypeText || c.Text != "" {
			content = append(content, c)
		}
	}
	if len(content) == 0 {
		// Cline's ToolResultUtils.pushToolResult says the same.
		content = append(content, api.TextContent("(tool did not return anything)"))
	}
	return api.ToolResult{Type: api.TypeToolResult, ToolUseID: id, Content: content, IsError: r.IsError}
}

func firstText(r tool.Result) string {
	for i := len(r.Content) - 1; i >= 0; i-- {
		if r.Content[i].Type == api.TypeText {
			return r.Content[i].Text
		}
	}
	return ""
}

// toolPaths is tool.Paths of the call's input, listed once per input.
func (cs *callState) toolPaths() []string {
	if !cs.pathsListed {
		cs.paths, cs.pathsListed = cs.tool.Paths(cs.input), true
		if cs.paths == nil {
			cs.paths = []string{} // listed, none: not "list them" to SubjectOf
		}
	}
	return cs.paths
}

// readKey names the file a read-counting call reads, for its read turn:
// its first path, workspace-relative and in lower case, as the handler's
// count key is. A path that does not resolve keys on itself.
func (c *Coordinator) readKey(cs *callState) string {
	paths := cs.toolPaths()
	if len(paths) == 0 {
		return ""
	}
	if rel, err := c.workspace.Rel(paths[0]); err == nil {
		return strings.ToLower(rel)
	}
	return strings.ToLower(paths[0])
}
