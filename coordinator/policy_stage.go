package coordinator

import (
	"context"

	"encoding/json"
	"errors"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// gate is the policy's verdict on a call that may go on: the subject it
// judged, the ignore rules it ran under and, when the rules say ask, the
// verdict the approval stage puts before the user.
type gate struct {
	sub     *policy.Subject
	ignored *ignore.Matcher
	ask     *policy.Verdict
	// decision and decidedBy are what the audit log records of the
	// judgement (allow or deny, and the rule or default that decided).
	decision, decidedBy string
}

// checkPolicy is the pipeline stage that judges the call's input (after
// the PreToolUse hooks, so an updatedInput is what it judges): it ends the
// call when the rules refuse it and notes when they ask for approval. A
// call whose message already had a call rejected is skipped (Cline's
// rejection cascade: the model gets the user's "no" before anything else
// of that turn runs).
//
// The hooks' decision weighs in as Claude Code documents it
// (code.claude.com/docs/en/hooks, PreToolUse decision control): "ask"
// puts the call before the user even when a rule allows it; "allow" skips
// the prompt the defaults would show, but not a deny or ask rule, nor the
// checks no allow rule may override (protected files, risky command lines,
// paths outside the workspace).
//
// In Cline's order (hooks after the approval) the stage runs again after
// the hooks: a replaced input is judged again, and a hook's ask is new
// only to a call the user has not approved. An input replaced after the
// user's approval is not put before the user a second time: the rules may
// still refuse it, but the approval stands.
func (c *Coordinator) checkPolicy(cs *callState) {
	if !cs.running() {
		return
	}
	if cs.judged {
		if cs.hook == hooks.Ask && !cs.approved && cs.ask == nil {
			cs.ask = hookAskVerdict(cs.hookReason)
		}
		return
	}
	cs.judged = true
	_, span := c.tracer.stage(context.Background(), cs, "policy")
	defer span.End()
	if cs.s.policy.wasRejected(cs.e.record.MessageID) {
		msg := skippedMessage
		if cs.dialect == nil {
			// The dialect may name the call after the reason.
			if desc := c.texts(cs.s.Dialect()).CallDescription(cs.toolName(), cs.raw); desc != "" {
				msg += " " + desc
			}
		}
		cs.stop(failure(api.StatusSkipped, api.ToolCodeSkipped, msg))
		return
	}
	stop, g := c.authorize(cs.s, cs.tool, cs.input, cs.raw, cs.toolPaths())
	if stop == nil {
		g = withHookDecision(g, cs.hook, cs.hookReason)
		stop, g = c.leaveSandbox(cs, g)
	}
	if g.decision != "" {
		cs.e.audit.decide(g.decision, g.decidedBy)
	}
	if stop != nil {
		if cs.dialect == nil {
			stop.result.Content = c.texts(cs.s.Dialect()).PolicyRefusal(cs.tool.Name, stop.code, stop.result.Content)
		}
		cs.stop(*stop)
		return
	}
	cs.sub, cs.ignored, cs.ask = g.sub, g.ignored, g.ask
	if cs.approved {
		cs.ask = nil
	}
}

// hookAskVerdict is the approval a PreToolUse hook's ask puts before the
// user.
func hookAskVerdict(reason string) *policy.Verdict {
	return &policy.Verdict{Decision: policy.Ask, Reason: "approval required by a PreToolUse hook: " + orDefault(reason, "no reason given")}
}

// decidedByHook names a PreToolUse hook's allow in the audit log.
const decidedByHook = "PreToolUse hook"

// withHookDecision weighs the PreToolUse hooks' allow or ask into the
// policy's gate (see checkPolicy).
func withHookDecision(g gate, d hooks.Decision, reason string) gate {
	switch {
	case d == hooks.Ask && g.ask == nil:
		g.ask = hookAskVerdict(reason)
		g.decision, g.decidedBy = "", ""
	case d == hooks.Allow && g.ask != nil && g.ask.Kind == policy.AskDefault:
		g.ask = nil
		g.decision, g.decidedBy = "allow", decidedByHook
	}
	return g
}

// authorize applies the policy to a decoded input: ignore rules on every
// path the call touches, the command's working directory, the session's
// mode and the permission decision. It returns the outcome that ends the
// call, or nil and the gate the call goes on with. paths are the input's
// (t.Paths(in)), or nil to list them here.
func (c *Coordinator) authorize(s *Session, t *tool.Tool, in any, raw json.RawMessage, paths []string) (*outcome, gate) {
	sub, line := c.buildSubject(t, in, raw, paths)
	m := c.ignoreMatcher()
	if parts, blocked := c.ignoreBlock(m, sub); blocked {
		out := failure(api.StatusDenied, api.ToolCodeIgnored, parts[0])
		for _, p := range parts[1:] {
			out.result.Content = append(out.result.Content, api.TextContent(p))
		}
		return &out, gate{decision: "deny", decidedBy: "ignore rules"}
	}
	if sub.BadCwd != nil {
		code := api.ToolCodeOutside
		var te *tool.ToolError
		if errors.As(sub.BadCwd, &te) {
			code = te.Code
		}
		out := failure(api.StatusDenied, code, "cwd: "+sub.BadCwd.Error())
		return &out, gate{}
	}
	// The session's mode and rules, read once for the whole judgement.
	mode, rules := s.policyView()
	if mode == api.ModePlan {
		if msg, refused := policy.PlanModeRefusal(t, sub); refused {
			out := failure(api.StatusDenied, api.ToolCodePlanMode, msg)
			return &out, gate{decision: "deny", decidedBy: "plan mode"}
		}
	}
	g := gate{sub: sub, ignored: m}
	v := c.policy.Decide(sub, t, rules, line.RequiresApproval)
	if v.Decision != policy.Deny {
		v = c.policy.RepositoryAsks(sub, m, v)
	}
	hidden, stop, denied := c.denialsBeyondRules(t, sub, m, v, rules)
	if stop != nil {
		return stop, denied
	}
	g.ignored = hidden
	switch v.Decision {
	case policy.Deny:
		out := failure(api.StatusDenied, api.ToolCodeDenied, "Denied: "+v.Reason+".")
		return &out, gate{decision: "deny", decidedBy: decidedByRule(v)}
	case policy.Ask:
		if policy.ModeAllows(mode, v, t, sub) {
			g.decision, g.decidedBy = "allow", "mode: "+string(mode)
			return nil, g
		}
		ask := v // a copy: &v would move every call's verdict to the heap
		g.ask = &ask
	}
	if g.ask == nil {
		g.decision, g.decidedBy = "allow", decidedByRule(v)
	}
	return nil, g
}

// denialsBeyondRules applies deny rules where they reach beyond the paths
// they name. Paths denied to reading are ignored paths for the rest of
// the call (policy/read_deny.go), and so are the other names of a denied
// file (policy/hardlinks.go): what the rules did not name themselves (a
// link to a denied file, a command or a search naming one) is refused as
// a path the ignore rules cover. A write through a hard link to a file
// denied to editing is refused. It returns the call's ignore rules, or
// the outcome that ends it. session is the session's rules.
//
// What cannot apply is passed over (BenchmarkReadPolicy): with no rule
// in either layer, nothing; the read denials' other names only when the
// rules deny reading something; the edit denials only for a call that
// writes or a command line that redirects its output.
func (c *Coordinator) denialsBeyondRules(t *tool.Tool, sub *policy.Subject, m *ignore.Matcher, v policy.Verdict, session []*policy.Rule) (*ignore.Matcher, *outcome, gate) {
	if len(c.policy.Managed) == 0 && len(session) == 0 {
		return m, nil, gate{}
	}
	layers := [][]*policy.Rule{c.policy.Managed, session}
	hidden := c.policy.WithReadDenials(m, layers[1])
	if hidden != m { // WithHardLinks adds nothing to what no read denial hides
		hidden = c.links.WithHardLinks(c.workspace, m, hidden, policy.ReadDenialPatterns(layers...))
	}
	if v.Decision == policy.Deny {
		return hidden, nil, gate{}
	}
	if hidden != m {
		if parts, blocked := c.ignoreBlock(hidden, sub); blocked {
			out := failure(api.StatusDenied, api.ToolCodeDenied, strings.Join(parts, "\n\n"))
			return nil, &out, gate{decision: "deny", decidedBy: "rule: read deny"}
		}
	}
	// Neither denial below refuses a call that neither writes nor
	// redirects a command's output.
	if !t.Writes && (sub.Command == nil || len(sub.Writes) == 0) {
		return hidden, nil, gate{}
	}
	edits := policy.EditDenialPatterns(layers...)
	if msg := policy.EditRedirectDenial(sub, edits); msg != "" {
		out := failure(api.StatusDenied, api.ToolCodeDenied, msg)
		return nil, &out, gate{decision: "deny", decidedBy: "rule: edit deny"}
	}
	if msg := c.links.EditLinkDenial(c.workspace, t, sub, edits); msg != "" {
		out := failure(api.StatusDenied, api.ToolCodeDenied, msg)
		return nil, &out, gate{decision: "deny", decidedBy: "rule: edit deny"}
	}
	return hidden, nil, gate{}
}

// buildSubject describes a decoded call for the rules
// (policy.Policy.Subject) and, for use_mcp_tool, names its MCP server and
// tool as the rules name them (mcp_tools.go: mcpInputNames). Without a
// workspace the subject carries no MCP names, as it carries no paths.
// paths are the input's (t.Paths(in)), or nil to list them here.
func (c *Coordinator) buildSubject(t *tool.Tool, in any, raw json.RawMessage, paths []string) (*policy.Subject, tool.CommandLine) {
	sub, line := c.policy.SubjectOf(t, in, paths)
	if t.Name == tool.UseMCPTool && c.workspace != nil {
		sub.MCPServer, sub.MCPTool = mcpInputNames(in, raw)
	}
	return sub, line
}

// deniedOutright reports whether a bare deny rule of either layer names
// the tool, so that tool lists can leave it out.
func (c *Coordinator) deniedOutright(s *Session, name string) bool {
	sub := &policy.Subject{Tool: name}
	if c.isCommandTool(name) {
		sub.Names = c.commandNames // a bare deny of one command tool hides them all
	}
	return c.deniedSubject(s, sub)
}
