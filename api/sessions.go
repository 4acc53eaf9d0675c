package api

import "time"

// Mode is a session's working mode: Cline's act and plan, and Claude
// Code's permission modes.
type Mode string

// Modes. Plan mode refuses every tool that writes. Act and default are the
// same mode under Cline's and Claude Code's names: the rules and defaults
// decide. AcceptEdits lets edits of workspace files run without a prompt;
// bypassPermissions lets everything run that no deny or ask rule (or
// protected file) stops, and only when the config allows it.
const (
	ModeAct               Mode = "act"
	ModePlan              Mode = "plan"
	ModeDefault           Mode = "default"
	ModeAcceptEdits       Mode = "acceptEdits"
	ModeBypassPermissions Mode = "bypassPermissions"
)

// Modes lists every mode a session may take.
func Modes() []Mode {
	return []Mode{ModeAct, ModePlan, ModeDefault, ModeAcceptEdits, ModeBypassPermissions}
}

// DefaultSessionID is the session that always exists; POST /v1/tool_use uses it.
const DefaultSessionID = "default"

// Permissions are rule lists in Claude Code's syntax, e.g. "read_file",
// "execute_command(git status)", "write_to_file(src/**)".
type Permissions struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	Ask   []string `json:"ask,omitempty"`
}

// CreateSessionRequest is the body of POST /v1/sessions.
type CreateSessionRequest struct {
	// ID names the session (1 to 64 letters, digits, '.', '_' or '-',
	// starting with a letter or digit); empty picks a random one.
	ID          string       `json:"id,omitempty"`
	Mode        Mode         `json:"mode,omitempty"`
	Permissions *Permissions `json:"permissions,omitempty"`
	// Dialect is the tool vocabulary of the session (default cline).
	Dialect Dialect `json:"dialect,omitempty"`
}

// UpdateSessionRequest is the body of PATCH /v1/sessions/{sid}; absent
// fields stay as they are.
type UpdateSessionRequest struct {
	Mode        Mode         `json:"mode,omitempty"`
	Permissions *Permissions `json:"permissions,omitempty"`
	Dialect     Dialect      `json:"dialect,omitempty"`
}

// Session is a session as clients see it.
type Session struct {
	ID          string      `json:"id"`
	Mode        Mode        `json:"mode"`
	Permissions Permissions `json:"permissions"`
	Dialect     Dialect     `json:"dialect"`
	// Todos is the todo list the model keeps with TodoWrite.
	Todos     []Todo    `json:"todos,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// TaskProgress is the latest task checklist the model sent in a
	// task_progress parameter (Cline's focus chain); empty until one came.
	TaskProgress string `json:"task_progress,omitempty"`
}

// SessionSummary is one session in the list GET /v1/sessions answers:
// what a console needs to pick a session and see which ones wait for a
// person, without each session's rules, todos or calls.
type SessionSummary struct {
	ID        string    `json:"id"`
	Mode      Mode      `json:"mode"`
	Dialect   Dialect   `json:"dialect"`
	CreatedAt time.Time `json:"created_at"`
	// LastUsedAt is when a request last named the session (its creation
	// before any did).
	LastUsedAt time.Time `json:"last_used_at"`
	// Calls counts the calls the session keeps; AwaitingApproval and
	// Running those in that state now.
	Calls            int `json:"calls"`
	AwaitingApproval int `json:"awaiting_approval"`
	Running          int `json:"running"`
}

// SessionsResponse answers GET /v1/sessions: every live session, those
// restored after a restart included, oldest first.
type SessionsResponse struct {
	Sessions []SessionSummary `json:"sessions"`
}
