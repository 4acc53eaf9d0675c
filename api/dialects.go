package api

// Dialect is the tool vocabulary a session's model speaks: which tool
// names it calls, with which parameters, and which result texts it
// expects. Every dialect runs on the same handlers.
type Dialect string

// Dialects. Cline is the default: its names are toolgate's own.
const (
	DialectCline      Dialect = "cline"
	DialectClaudeCode Dialect = "claude_code"
	DialectAnthropic  Dialect = "anthropic"
	DialectCodex      Dialect = "codex"
)

// DefaultDialect is the dialect of a session that names none: its tool
// names are toolgate's own.
const DefaultDialect = DialectCline

// Dialects lists every dialect, the default first.
func Dialects() []Dialect {
	return []Dialect{DialectCline, DialectClaudeCode, DialectAnthropic, DialectCodex}
}

// ValidDialect reports whether d names a dialect ("" counts: it means the
// default or "unchanged").
func ValidDialect(d Dialect) bool {
	if d == "" {
		return true
	}
	for _, x := range Dialects() {
		if d == x {
			return true
		}
	}
	return false
}

// Todo is one entry of a session's todo list, as Claude Code's TodoWrite
// keeps it.
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm,omitempty"`
	ID         string `json:"id,omitempty"`
}
