package coordinator

import (
	"context"
	"log/slog"

	"github.com/toolgate/toolgate/api"

	"github.com/toolgate/toolgate/internal/ignore"
)

// Call is what a handler knows of the call it serves beyond its input: who
// is calling, where, and where partial output goes.
type Call struct {
	ToolUseID string
	Name      string
	SessionID string
	Workspace *Workspace
	Logger    *slog.Logger
	// Files is the session's memory of files read and written; handlers
	// record reads and check it before edits.
	Files *FileMemory
	// Jobs are the session's background processes.
	Jobs *Jobs
	// Partial marks a preview of a tool_use block that is still streaming
	// in: its input may be cut anywhere.
	Partial bool

	output  func(stream, chunk string)
	ignored *ignore.Matcher // the ignore rules in force, for Exclude
	keep    func(KeptOutput)
	await   func(ctx context.Context, req api.InputRequest) (string, error)
	todos   func([]api.Todo)
}

// SetTodos replaces the session's todo list (Claude Code's TodoWrite);
// the session announces it with a todos.updated event.
func (c *Call) SetTodos(todos []api.Todo) {
	if c.todos != nil {
		c.todos(todos)
	}
}

// Output sends a chunk of partial output (stream "stdout", "stderr" or
// "match", ...) to the session's event stream. It never blocks on readers.
func (c *Call) Output(stream, chunk string) {
	if c.output != nil && chunk != "" {
		c.output(stream, chunk)
	}
}
