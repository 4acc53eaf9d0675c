package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/ignore"
)

// gate is the policy stage's verdict on a call that may run: the ignore
// rules it ran under and the user's feedback from the approval, if any.
type gate struct {
	ignored  *ignore.Matcher
	feedback string
	// hookContext is what PreToolUse hooks add to the tool_result.
	hookContext []string
	// approved is set when the user approved the call as it will run, so
	// a hook asking for approval does not ask a second time.
	approved bool
}

// authorize is the policy stage of the pipeline, after decoding: the
// rejection cascade, ignore rules on every path the call touches, the
// session's mode, the permission decision and, when it says ask, the
// user's approval. It returns the outcome that ends the call, or nil and
// what the call runs with.
func (c *Coordinator) authorize(ctx context.Context, s *Session, e *callEntry, t *Tool, in any, raw json.RawMessage) (*outcome, gate) {
	if s.policy.wasRejected(e.record.MessageID) {
		out := failure(api.StatusSkipped, api.ToolCodeSkipped, skippedMessage)
		return &out, gate{}
	}
	sub, line := c.buildSubject(t, in, raw)
	m := c.ignoreMatcher()
	if msg, blocked := c.ignoreBlock(m, sub); blocked {
		out := failure(api.StatusDenied, api.ToolCodeIgnored, msg)
		return &out, gate{}
	}
	if sub.badCwd != nil {
		code := api.ToolCodeOutside
		var te *ToolError
		if errors.As(sub.badCwd, &te) {
			code = te.Code
		}
		out := failure(api.StatusDenied, code, "cwd: "+sub.badCwd.Error())
		return &out, gate{}
	}
	if s.Mode() == api.ModePlan {
		if msg, refused := planModeRefusal(t, sub); refused {
			out := failure(api.StatusDenied, api.ToolCodePlanMode, msg)
			return &out, gate{}
		}
	}
	v := c.policy.decide(sub, t, sessionRules(s.sessionPermissions()), line.RequiresApproval)
	switch v.decision {
	case decideDeny:
		out := failure(api.StatusDenied, api.ToolCodeDenied, "Denied: "+v.reason+".")
		return &out, gate{}
	case decideAsk:
		out, feedback := c.askApproval(ctx, s, e, v, sub, t, in, raw)
		return out, gate{ignored: m, feedback: feedback, approved: out == nil}
	}
	return nil, gate{ignored: m}
}

// deniedOutright reports whether a bare deny rule of either layer names
// the tool, so that tool lists can leave it out.
func (c *Coordinator) deniedOutright(s *Session, name string) bool {
	return c.deniedSubject(s, &subject{tool: name})
}

// planModeRefusal says why plan mode refuses a call: tools that change
// files, and command lines that are not read-only. Reading commands (ls,
// cat, git status, grep ...) still run, as exploring is what planning is.
func planModeRefusal(t *Tool, sub *subject) (string, bool) {
	switch {
	case sub.command != nil && sub.command.ReadOnly():
		return "", false
	case sub.command != nil:
		return "Plan mode runs only commands that read (such as ls, cat, grep, git status or git diff); this one may change something. " +
			"Switch the session to act mode to run it.", true
	case t.Writes:
		return fmt.Sprintf("Tool %s is not available in plan mode because it changes files. Switch the session to act mode to use it.", t.Name), true
	}
	return "", false
}
