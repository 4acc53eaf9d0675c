package coordinator

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// Config is the managed side of the coordinator: policy and limits that
// sessions may narrow but never widen. Its defaults are in
// config_defaults.go. The JSON names of its own fields are those of the
// older flat layout, where "policy" held every setting; the config file
// groups them by concern under the keys of cmd/toolgate/config_view.go.
type Config struct {
	// Permissions are the managed rules; session rules merge beneath them.
	Permissions api.Permissions `json:"permissions"`
	// PolicyConfig holds the policy switches (allow_all, ...).
	PolicyConfig
	// AgentConfig holds hooks, interactive tools and the loop guard.
	AgentConfig
	// MCPConfig names the MCP servers.
	MCPConfig
	// MaxSessions bounds live sessions, "default" included.
	MaxSessions int `json:"max_sessions"`
	// SessionIdleSeconds is how long a session nothing uses lives (no
	// request names it, no call of it runs, no event stream of it is
	// open); 0 means an hour, a negative value never.
	SessionIdleSeconds int `json:"session_idle_seconds"`
	// EventLogSize is how many recent events each session keeps for
	// Last-Event-ID replay.
	EventLogSize int `json:"event_log_size"`
	// EventLogBytes bounds the bytes of those events (output chunks,
	// results, previews), counted approximately: large events leave
	// fewer in the window.
	EventLogBytes int `json:"event_log_bytes"`
	// MaxCallsPerSession bounds the finished call records a session keeps.
	MaxCallsPerSession int `json:"max_calls_per_session"`
	// MaxCallBytesPerSession bounds the bytes of the results those
	// records hold (texts and images, counted as eventlog.ResultSize does): past
	// it the oldest finished calls are forgotten, as past
	// MaxCallsPerSession. The newest call is always kept.
	MaxCallBytesPerSession int `json:"max_call_bytes_per_session"`
	// Commands configures execute_command.
	Commands tool.CommandConfig `json:"commands"`
	// Sandbox confines everything toolgate starts for a model.
	Sandbox sandbox.Config `json:"sandbox"`
	// StateFiles are toolgate's own files beyond the config file (the
	// token file): hidden from every sandboxed run.
	StateFiles []string `json:"-"`
	// WebFetch configures web_fetch and the addresses browser_action may
	// reach.
	WebFetch WebFetchConfig `json:"web_fetch"`
	// Browser configures browser_action.
	Browser BrowserConfig `json:"browser"`
	// RequireReadBeforeEdit refuses edits of existing files the session
	// has not read (or written) first.
	RequireReadBeforeEdit bool `json:"require_read_before_edit"`
	// OmitFinalFileContent leaves the whole file out of the answers of
	// write_to_file, replace_in_file and new_rule: the body of Cline's
	// <final_file_content> becomes the note Cline's context management
	// puts there when it drops an old file read. The unified diff of the
	// change still follows.
	OmitFinalFileContent bool `json:"omit_final_file_content"`
	// RevertMaxCount and RevertMaxBytes bound the prior file contents a
	// session keeps for reverts; the oldest go first.
	RevertMaxCount int   `json:"revert_max_count"`
	RevertMaxBytes int64 `json:"revert_max_bytes"`
	// MaxConcurrency bounds how many concurrency-safe calls of one message
	// run at once.
	MaxConcurrency int `json:"max_concurrency"`
	// CascadeTools are the tools whose failure cancels the calls of the
	// same message still running or not yet started: a failed command
	// usually makes its siblings pointless. Nil means execute_command.
	CascadeTools []string `json:"cascade_tools"`
	// MaxOpenMessages bounds the streaming messages a session has open
	// (blocks posted, not yet completed or discarded).
	MaxOpenMessages int `json:"max_open_messages"`
	// OpenMessageIdleSeconds is how long an open streaming message with
	// nothing running may sit untouched before a new message may take its
	// place when the session is at MaxOpenMessages.
	OpenMessageIdleSeconds int `json:"open_message_idle_seconds"`
}

// AgentConfig holds the settings of hooks, interactive tools and the loop
// guard. It is embedded in Config; the config file puts hooks and
// subagents in sections of their own and the rest under "tools".
type AgentConfig struct {
	Hooks hooks.Config `json:"hooks,omitzero"`
	// InputTimeout is how long an interactive call (ask_followup_question,
	// attempt_completion, plan_mode_respond) waits for an answer; default
	// 30 minutes.
	InputTimeout Duration `json:"input_timeout,omitempty"`
	// LoopGuardRepeats is how many identical calls in a row earn a
	// warning (default 3; negative turns the guard off).
	LoopGuardRepeats int `json:"loop_guard_repeats,omitempty"`
	// Subagents turns agent files into use_subagent_<name> tools.
	Subagents SubagentConfig `json:"subagents,omitzero"`
}

// inputTimeout is InputTimeout, which New has filled in.
func (a AgentConfig) inputTimeout() time.Duration {
	return time.Duration(a.InputTimeout)
}

// Duration is a time.Duration written in config files as "10m" or "500ms".
type Duration time.Duration

// MarshalJSON writes the duration as a string such as "10m0s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads "10m", "1h30m" or "500ms".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"10m\", not %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
