package hooks

import "regexp"

// Hook events.
const (
	PreToolUse  = "PreToolUse"
	PostToolUse = "PostToolUse"
)

// Config is the "hooks" section of the config, in Claude Code's
// shape: per event, matchers and the hooks they run. The lower-case keys
// are toolgate's own settings for all hooks.
type Config struct {
	PreToolUse  []Matcher `json:"PreToolUse,omitempty"`
	PostToolUse []Matcher `json:"PostToolUse,omitempty"`
	// FailClosed denies the call when a hook fails (crashes, times out,
	// prints invalid JSON); by default a failed hook is logged and ignored.
	FailClosed bool `json:"fail_closed,omitempty"`
	// TrustWorkspace runs the workspace's own hooks (executables named
	// PreToolUse and PostToolUse in .clinerules/hooks/). Off by default:
	// a cloned repository must not run code by itself.
	TrustWorkspace bool `json:"trust_workspace,omitempty"`
	// MaxOutputBytes caps what is read of a hook's stdout and stderr
	// each (default 64 KiB).
	MaxOutputBytes int `json:"max_output_bytes,omitempty"`
}

// Matcher runs its hooks for the tools Matcher names: a tool name, a
// regular expression over tool names ("write_to_file|replace_in_file",
// "mcp__github__.*"), or "*" / "" for every tool.
type Matcher struct {
	Matcher string `json:"matcher"`
	Hooks   []Spec `json:"hooks"`
}

// Spec is one hook: a shell command that gets the event as JSON on
// stdin, or an HTTP endpoint the same JSON is POSTed to.
type Spec struct {
	// Type is "command" (the default) or "http".
	Type    string `json:"type,omitempty"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
	// Timeout in seconds (default 60).
	Timeout int `json:"timeout,omitempty"`
}

// matcherRE compiles a matcher as Claude Code reads it: anchored, and a
// matcher that is not a valid expression matches its literal text only.
func matcherRE(m string) *regexp.Regexp {
	if m == "" || m == "*" {
		return regexp.MustCompile(`.*`)
	}
	re, err := regexp.Compile(`^(?:` + m + `)$`)
	if err != nil {
		return regexp.MustCompile(`^` + regexp.QuoteMeta(m) + `$`)
	}
	return re
}
