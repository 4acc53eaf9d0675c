package coordinator

import (
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// A dialect call may ask to run its command outside the sandbox (Claude
// Code's dangerouslyDisableSandbox, tool.Mapping.Unsandboxed). Claude
// Code promises that such a command never runs unsandboxed without the
// user's say: toolgate refuses it in plan mode and unless the managed
// policy allows unsandboxed commands (allow_unsandboxed_commands), and
// otherwise puts every such call before the user, whatever the rules,
// the mode or a PreToolUse hook allowed. Only an approved call's
// processes run unconfined (the execute stage's Confine).

// unsandboxedReason is what the approval of such a call says.
const unsandboxedReason = "approval required: the command asks to run outside the sandbox (dangerouslyDisableSandbox), " +
	"where it can read and change anything toolgate's user can"

// leaveSandbox weighs a call's request to leave the sandbox into the
// policy's gate: the outcome that refuses it, or the gate with an ask no
// mode or rule waives. With the sandbox off every command runs unconfined
// already, and a call that asks nothing of the kind is left as it is.
func (c *Coordinator) leaveSandbox(cs *callState, g gate) (*outcome, gate) {
	if cs.dialect == nil || !cs.dialect.mapping.Unsandboxed || g.sub == nil || g.sub.Command == nil ||
		c.sandbox.Mode() == sandbox.InForceOff {
		return nil, g
	}
	switch {
	case cs.s.Mode() == api.ModePlan:
		out := failure(api.StatusDenied, api.ToolCodePlanMode, "Plan mode does not run commands outside the sandbox. "+
			"Run the command without dangerouslyDisableSandbox, or switch the session to act mode.")
		return &out, gate{decision: "deny", decidedBy: "plan mode"}
	case !c.cfg.AllowUnsandboxedCommands:
		out := failure(api.StatusDenied, api.ToolCodeDenied, "Denied: the command asks to run outside the sandbox (dangerouslyDisableSandbox), "+
			"and the managed policy does not allow unsandboxed commands (allow_unsandboxed_commands). Run it without dangerouslyDisableSandbox.")
		return &out, gate{decision: "deny", decidedBy: "managed policy: allow_unsandboxed_commands"}
	}
	v := policy.Verdict{Decision: policy.Ask, Kind: policy.AskHard, Reason: unsandboxedReason, Unsandboxed: true}
	if g.ask != nil {
		v.Rule = g.ask.Rule
		v.Reason = g.ask.Reason + "; also " + strings.TrimPrefix(unsandboxedReason, "approval required: ")
	}
	g.ask, g.decision, g.decidedBy = &v, "", ""
	cs.unsandboxed = true
	return nil, g
}

// unsandboxedPreview is what an approval shows of the sandbox for a call
// that leaves it.
func unsandboxedPreview(background bool) *api.SandboxPreview {
	return &api.SandboxPreview{Mode: sandbox.InForceOff, Network: "on", Background: background,
		Summary: "Runs OUTSIDE the sandbox, as the call asks (dangerouslyDisableSandbox): it can read and change anything toolgate's user can, network included."}
}

// unconfined is the run of an approved unsandboxed command: in dir (the
// workspace when ""), nothing hidden, no sandbox.
func (c *Coordinator) unconfined(dir string) sandbox.Run {
	if dir == "" && c.workspace != nil {
		dir = c.workspace.Dir
	}
	ws := dir
	if c.workspace != nil {
		ws = c.workspace.Dir
	}
	return sandbox.Run{Workspace: ws, Dir: dir}
}
