package coordinator

import (
	"time"
)

// PolicyConfig holds the managed policy's switches. It is embedded in
// Config, so its fields sit beside "permissions" in the config file.
type PolicyConfig struct {
	// AllowAll allows every call that no deny or ask rule covers, as
	// Cline's "auto-approve everything": risky command lines included.
	// Ignore rules and protected files (which always ask) still apply.
	AllowAll bool `json:"allow_all,omitempty"`
	// ForbidSessionAllow refuses allow rules from sessions, including the
	// rules "remember" would add: only the managed policy may allow.
	ForbidSessionAllow bool `json:"forbid_session_allow,omitempty"`
	// AllowBypassPermissions lets sessions take Claude Code's
	// bypassPermissions mode, in which every call runs that no deny or ask
	// rule, ignore rule, protected file or path outside the workspace
	// stops. Off by default: a session asking for it gets a 400.
	AllowBypassPermissions bool `json:"allow_bypass_permissions,omitempty"`
	// AllowUnsandboxedCommands lets a call ask to run its command outside
	// the sandbox (Claude Code's dangerouslyDisableSandbox); each such call
	// is put before the user, whatever the rules and the mode allow. Off
	// by default: such a call is refused, as an approved command must stay
	// confined (docs/security.md).
	AllowUnsandboxedCommands bool `json:"allow_unsandboxed_commands,omitempty"`
	// ApprovalTimeout is how long a call waits for a decision before it is
	// denied; default 10 minutes.
	ApprovalTimeout Duration `json:"approval_timeout,omitempty"`
	// IgnoreFiles are further workspace-relative files in .clineignore
	// syntax, enforced like .clineignore and protected like it.
	IgnoreFiles []string `json:"ignore_files,omitempty"`
	// ProtectedFiles are further workspace paths or gitignore patterns
	// that no write may touch without asking. The server's own config and
	// token files belong here when they live in the workspace.
	ProtectedFiles []string `json:"protected_files,omitempty"`
}

// approvalTimeout is ApprovalTimeout, which New has filled in.
func (p PolicyConfig) approvalTimeout() time.Duration {
	return time.Duration(p.ApprovalTimeout)
}
