package coordinator

import "github.com/toolgate/toolgate/api"

// Config is the managed side of the coordinator: policy and limits that
// sessions may narrow but never widen.
type Config struct {
	// Permissions are the managed rules; session rules merge beneath them.
	Permissions api.Permissions `json:"permissions"`
	// MaxSessions bounds live sessions, "default" included.
	MaxSessions int `json:"max_sessions"`
	// EventLogSize is how many recent events each session keeps for
	// Last-Event-ID replay.
	EventLogSize int `json:"event_log_size"`
	// MaxCallsPerSession bounds the finished call records a session keeps.
	MaxCallsPerSession int `json:"max_calls_per_session"`
	// Commands configures execute_command.
	Commands CommandConfig `json:"commands"`
	// RequireReadBeforeEdit refuses edits of existing files the session
	// has not read (or written) first.
	RequireReadBeforeEdit bool `json:"require_read_before_edit"`
	// RevertMaxCount and RevertMaxBytes bound the prior file contents a
	// session keeps for reverts; the oldest go first.
	RevertMaxCount int   `json:"revert_max_count"`
	RevertMaxBytes int64 `json:"revert_max_bytes"`
}

// DefaultConfig is the configuration used when no file sets one.
func DefaultConfig() Config {
	return Config{MaxSessions: 256, EventLogSize: 4096, MaxCallsPerSession: 10000,
		RevertMaxCount: defaultRevertMaxCount, RevertMaxBytes: defaultRevertMaxBytes}
}
