package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/api"
)

// hookInputFor describes a call to its hooks. tool_input is the input as
// the model sent it, so hooks see what the model asked for.
func (c *Coordinator) hookInputFor(s *Session, p prepared, event string) hookInput {
	in := hookInput{SessionID: s.ID, HookEventName: event, ToolName: p.use.Name, ToolInput: p.use.Input,
		ToolUseID: p.use.ID, PermissionMode: "default"}
	if len(in.ToolInput) == 0 {
		in.ToolInput = json.RawMessage("{}")
	}
	if c.workspace != nil {
		in.Cwd = c.workspace.Dir
	}
	if s.Mode() == api.ModePlan {
		in.PermissionMode = "plan"
	}
	return in
}

// preToolUse runs the PreToolUse hooks of a call the policy let through.
// A deny ends the call; an ask puts it before the user unless the user
// has just approved this very input, so nobody is asked twice; an updatedInput
// is decoded, validated and put through the policy again, as it is a new
// call. It returns the outcome that ends the call, or nil and the call as
// it is to run.
func (c *Coordinator) preToolUse(ctx context.Context, s *Session, e *callEntry, p prepared, g gate) (*outcome, prepared, gate) {
	var v hookVerdict
	if !c.hooks.idle(HookPreToolUse) {
		v = c.hooks.run(ctx, c.hookInputFor(s, p, HookPreToolUse), hookNames(p)...)
	}
	if len(v.failed) > 0 && c.cfg.Hooks.FailClosed {
		out := failure(api.StatusDenied, api.ToolCodeHookFailed, "Denied: a PreToolUse hook failed and hooks fail closed: "+strings.Join(v.failed, "; "))
		return &out, p, g
	}
	if v.decision == hookDeny {
		out := failure(api.StatusDenied, api.ToolCodeHookBlocked, "Blocked by a PreToolUse hook: "+orDefault(v.reason, "no reason given"))
		return &out, p, g
	}
	g.hookContext = v.context
	if v.updated != nil {
		// The hook saw the call as the model named it, so its input is in
		// the session's dialect and crosses the same edge.
		name, raw, _, stop := c.translate(s.Dialect(), api.ToolUse{Name: p.use.Name, Input: v.updated})
		if stop != nil {
			out := *stop
			out.result.Content = append([]api.Content{api.TextContent("A PreToolUse hook's updatedInput cannot be used:")}, out.result.Content...)
			return &out, p, g
		}
		var in any
		err := fmt.Errorf("it maps onto tool %s, not %s", name, p.tool.Name)
		if name == p.tool.Name {
			in, err = decodeInput(p.tool, c.validate, raw)
		}
		if err != nil {
			out := failure(api.StatusInvalid, api.ToolCodeInvalid, "A PreToolUse hook's updatedInput is invalid: "+err.Error())
			return &out, p, g
		}
		p.input, p.raw = in, raw
		stop, g2 := c.authorize(ctx, s, e, p.tool, in, raw)
		if stop != nil {
			return stop, p, g
		}
		g2.hookContext, g2.feedback = g.hookContext, orDefault(g2.feedback, g.feedback)
		g = g2
	}
	if v.decision == hookAsk && !g.approved {
		sub, _ := c.buildSubject(p.tool, p.input, p.raw)
		ask := verdict{decision: decideAsk, reason: "approval required by a PreToolUse hook: " + orDefault(v.reason, "no reason given")}
		out, feedback := c.askApproval(ctx, s, e, ask, sub, p.tool, p.input, p.raw)
		if out != nil {
			return out, p, g
		}
		g.feedback = orDefault(feedback, g.feedback)
	}
	return nil, p, g
}

// postToolUse appends the PreToolUse context, then runs the PostToolUse
// hooks of a call that ran: they may add context to its tool_result or
// mark it blocked.
func (c *Coordinator) postToolUse(ctx context.Context, s *Session, p prepared, g gate, out *outcome) {
	for _, t := range g.hookContext {
		out.result.Content = append(out.result.Content, api.TextContent(t))
	}
	if out.status != api.StatusSucceeded && out.status != api.StatusFailed || c.hooks.idle(HookPostToolUse) {
		return
	}
	in := c.hookInputFor(s, p, HookPostToolUse)
	in.ToolResponse = api.ToolResult{Type: api.TypeToolResult, ToolUseID: p.use.ID, Content: out.result.Content, IsError: out.result.IsError}
	v := c.hooks.run(ctx, in, hookNames(p)...)
	for _, t := range v.context {
		out.result.Content = append(out.result.Content, api.TextContent(t))
	}
	reason := ""
	switch {
	case v.decision == hookDeny:
		reason = "Blocked by a PostToolUse hook: " + orDefault(v.reason, "no reason given")
	case len(v.failed) > 0 && c.cfg.Hooks.FailClosed:
		reason = "A PostToolUse hook failed and hooks fail closed: " + strings.Join(v.failed, "; ")
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
func hookNames(p prepared) []string {
	names := []string{p.use.Name, p.tool.Name}
	if p.tool.Name != UseMCPTool {
		return names
	}
	server, tool := mcpCallNames(p.raw)
	if server == "" || tool == "" {
		return names
	}
	return append(names, mcpPrefix+server+"__"+tool)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
