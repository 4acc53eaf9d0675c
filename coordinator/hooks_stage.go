package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// hookInputFor describes a call to its hooks. tool_input is the input in
// the model's words: as the model sent it, or as a PreToolUse hook's
// updatedInput replaced it, which is what PostToolUse hooks see ran.
func (c *Coordinator) hookInputFor(cs *callState, event string) hooks.Input {
	toolInput := cs.use.Input
	if cs.hookInput != nil {
		toolInput = cs.hookInput
	}
	in := hooks.Input{SessionID: cs.s.ID, HookEventName: event, ToolName: cs.use.Name, ToolInput: toolInput,
		ToolUseID: cs.use.ID, PermissionMode: policy.HookModeName(cs.s.Mode())}
	if len(in.ToolInput) == 0 {
		in.ToolInput = json.RawMessage("{}")
	}
	if c.workspace != nil {
		in.Cwd = c.workspace.Dir
	}
	return in
}

// preHooks is the pipeline stage that runs the PreToolUse hooks of a
// prepared call (before the policy in Claude Code's order, after the
// approval in Cline's; see runCall): a deny ends the call; an allow or ask
// is kept for the policy (checkPolicy); an updatedInput is read as the
// model's input is (useUpdatedInput) and replaces it, and the policy then
// judges it; added context is kept for the result. A call whose message already had a call
// rejected is left to the policy's rejection cascade, unseen by hooks.
func (c *Coordinator) preHooks(ctx context.Context, cs *callState) {
	if !cs.running() || c.hooks.Idle(hooks.PreToolUse) || cs.s.policy.wasRejected(cs.e.record.MessageID) {
		return
	}
	ctx, span := c.tracer.stage(ctx, cs, "hooks PreToolUse")
	defer span.End()
	v := c.hooks.Run(ctx, c.hookInputFor(cs, hooks.PreToolUse), c.hookNames(cs)...)
	if len(v.Failed) > 0 && c.cfg.Hooks.FailClosed {
		cs.stop(failure(api.StatusDenied, api.ToolCodeHookFailed, "Denied: a PreToolUse hook failed and hooks fail closed: "+strings.Join(v.Failed, "; ")))
		return
	}
	if v.Decision == hooks.Deny {
		cs.stop(failure(api.StatusDenied, api.ToolCodeHookBlocked, "Blocked by a PreToolUse hook: "+orDefault(v.Reason, "no reason given")))
		return
	}
	cs.hookContext = v.Context
	if v.Updated != nil && !c.useUpdatedInput(cs, v.Updated) {
		return
	}
	cs.hook, cs.hookReason = v.Decision, v.Reason
}

// useUpdatedInput replaces the call's input with a PreToolUse hook's
// updatedInput, or ends the call when it cannot be used, and reports
// whether the call goes on. The hook saw the call as the model named it, so
// its input is in the session's dialect and is read as the model's own
// input is (decodeUse: the dialect's edge, aliases, task_progress, empty
// strings, string coercion), so that an input that works from the model
// works from a hook, and the raw input judged and shown is the coerced
// one. Its dialect mapping is the hook's input's too: the result is
// worded for that input, and a Bash call whose hook took
// dangerouslyDisableSandbox out stays in the sandbox (one whose hook put
// it in asks to leave it). The call keeps the model's task_progress,
// noted when it was queued.
func (c *Coordinator) useUpdatedInput(cs *callState, updated json.RawMessage) bool {
	d, stop := c.decodeUse(cs.s, api.ToolUse{Name: cs.use.Name, Input: updated})
	if stop != nil {
		out := *stop
		out.result.Content = append([]api.Content{api.TextContent("A PreToolUse hook's updatedInput cannot be used:")}, out.result.Content...)
		cs.stop(out)
		return false
	}
	err := d.err
	if d.tool.Name != cs.tool.Name {
		err = fmt.Errorf("it maps onto tool %s, not %s", d.tool.Name, cs.tool.Name)
	}
	if err != nil {
		cs.stop(failure(api.StatusInvalid, api.ToolCodeInvalid, "A PreToolUse hook's updatedInput is invalid: "+err.Error()))
		return false
	}
	cs.input, cs.raw, cs.hookInput, cs.dialect = d.input, d.raw, updated, d.dialect
	cs.paths, cs.pathsListed = nil, false
	cs.judged = false
	return true
}

// postHooks is the pipeline stage after execute: it appends the PreToolUse
// context, then runs the PostToolUse hooks of a call that ran: they may
// add context to its tool_result or mark it blocked.
func (c *Coordinator) postHooks(ctx context.Context, cs *callState) {
	if !cs.ran {
		return
	}
	out := cs.end
	for _, t := range cs.hookContext {
		out.result.Content = append(out.result.Content, api.TextContent(t))
	}
	if out.status != api.StatusSucceeded && out.status != api.StatusFailed || c.hooks.Idle(hooks.PostToolUse) {
		return
	}
	ctx, span := c.tracer.stage(ctx, cs, "hooks PostToolUse")
	defer span.End()
	in := c.hookInputFor(cs, hooks.PostToolUse)
	in.ToolResponse = api.ToolResult{Type: api.TypeToolResult, ToolUseID: cs.use.ID, Content: out.result.Content, IsError: out.result.IsError}
	v := c.hooks.Run(ctx, in, c.hookNames(cs)...)
	for _, t := range v.Context {
		out.result.Content = append(out.result.Content, api.TextContent(t))
	}
	reason := ""
	switch {
	case v.Decision == hooks.Deny:
		reason = "Blocked by a PostToolUse hook: " + orDefault(v.Reason, "no reason given")
	case len(v.Failed) > 0 && c.cfg.Hooks.FailClosed:
		reason = "A PostToolUse hook failed and hooks fail closed: " + strings.Join(v.Failed, "; ")
	default:
		return
	}
	out.result.Content = append(out.result.Content, api.TextContent(reason))
	out.result.IsError = true
	out.status, out.code = api.StatusFailed, api.ToolCodeHookBlocked
}

// hookNames are the names a call's hooks match against: the name the
// model used, the registered one and, for a direct use_mcp_tool call,
// mcp__<server>__<tool>, so that a matcher such as "mcp__github__.*" sees
// an MCP call however the model named it, as the permission rules do.
func (c *Coordinator) hookNames(cs *callState) []string {
	names := []string{cs.use.Name, cs.tool.Name}
	if cs.tool.RunsCommands() {
		// A hook that guards commands ("Bash", "execute_command") guards
		// every tool that runs one, as command rules do.
		return append(names, c.commandNames...)
	}
	if cs.tool.Name != tool.UseMCPTool {
		return names
	}
	server, mcpTool := mcpInputNames(cs.input, cs.raw)
	if server == "" || mcpTool == "" {
		return names
	}
	return append(names, tool.MCPPrefix+server+"__"+mcpTool)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
