package api

import "time"

// Approval is what a client needs to decide on a call in state
// awaiting_approval; it rides on the tool.awaiting_approval event.
type Approval struct {
	// Reason says why the call needs a decision: the rule and its layer,
	// or the default that applies.
	Reason string `json:"reason"`
	// Rule is the ask rule that matched, when one did.
	Rule string `json:"rule,omitempty"`
	// Deadline is when the call is denied if no decision has come.
	Deadline time.Time `json:"deadline"`
	// Preview shows what the call would do.
	Preview Preview `json:"preview"`
}

// Preview shows what a call would do before it runs: on
// tool.awaiting_approval, and on tool.partial while a block streams in.
type Preview struct {
	// Command is the execute_command line, and Parts its simple commands.
	Command string        `json:"command,omitempty"`
	Parts   []CommandPart `json:"parts,omitempty"`
	// Risks name the constructs that keep the command from auto-approval.
	Risks []string `json:"risks,omitempty"`
	// Paths are the workspace paths the call touches.
	Paths []string `json:"paths,omitempty"`
	// Diff is a unified diff of a write against the current file.
	Diff string `json:"diff,omitempty"`
	// Error says why no diff could be computed (yet).
	Error string `json:"error,omitempty"`
	// Sandbox says what the sandbox lets a command do.
	Sandbox *SandboxPreview `json:"sandbox,omitempty"`
	// Network is the host and port of a network approval.
	Network *NetworkPreview `json:"network,omitempty"`
	// Input is the call's input, for tools without a better preview.
	Input RawJSON `json:"input,omitempty"`
}

// RawJSON is a JSON value passed through unchanged.
type RawJSON []byte

// MarshalJSON returns the value itself, or null when empty.
func (r RawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// UnmarshalJSON keeps a copy of the value.
func (r *RawJSON) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

// CommandPart is one simple command of a command line.
type CommandPart struct {
	// Args are the command's unquoted words.
	Args []string `json:"args"`
	// Dir is the workspace-relative directory it runs in ("" the root).
	Dir string `json:"dir,omitempty"`
}

// Decisions a client may give on a call awaiting approval.
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
)

// DecisionRequest is the body of POST
// /v1/sessions/{sid}/calls/{tool_use_id}/decision.
type DecisionRequest struct {
	// Decision is approve or reject.
	Decision string `json:"decision"`
	// Remember adds an allow rule for this exact call shape to the session.
	Remember bool `json:"remember,omitempty"`
	// Feedback is passed to the model in the tool_result.
	Feedback string `json:"feedback,omitempty"`
}

// DecisionResponse answers a decision.
type DecisionResponse struct {
	ToolUseID string `json:"tool_use_id"`
	Decision  string `json:"decision"`
	// RememberedRules are the allow rules added to the session, if any.
	RememberedRules []string `json:"remembered_rules,omitempty"`
}

// SandboxPreview says what the sandbox lets a command do.
type SandboxPreview struct {
	// Mode is bwrap, landlock, off or unavailable.
	Mode string `json:"mode"`
	// Network is "on" or "off".
	Network string `json:"network"`
	// Writable are the paths it may write besides a private /tmp.
	Writable []string `json:"writable,omitempty"`
	// Background marks a command that runs on as a session job.
	Background bool `json:"background,omitempty"`
	// Summary says it in one line.
	Summary string `json:"summary"`
}

// PendingApproval is one call awaiting a decision, in any session, as
// GET /v1/approvals lists it: the approvals inbox.
type PendingApproval struct {
	SessionID string     `json:"session_id"`
	Call      CallRecord `json:"call"`
	Approval  Approval   `json:"approval"`
}

// ApprovalsResponse answers GET /v1/approvals, oldest call first.
type ApprovalsResponse struct {
	Approvals []PendingApproval `json:"approvals"`
}
