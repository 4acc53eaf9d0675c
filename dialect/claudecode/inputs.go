package claudecode

import "encoding/json"

// The inputs of Claude Code's tools: the parameters, their types and the
// descriptions its tool docs give, from which the schemas its model sees
// are derived.

// ReadInput is Claude Code's Read.
type ReadInput struct {
	FilePath string `json:"file_path" validate:"required" jsonschema:"The absolute path to the file to read"`
	Offset   int    `json:"offset,omitempty" validate:"omitempty,min=1" jsonschema:"The line number to start reading from. Only provide if the file is too large to read at once"`
	Limit    int    `json:"limit,omitempty" validate:"omitempty,min=1" jsonschema:"The number of lines to read. Only provide if the file is too large to read at once."`
	Pages    string `json:"pages,omitempty" jsonschema:"Pages of a PDF to read as images: 3, 1-5 or 10- (at most 20 a call)"`
}

// WriteInput is Claude Code's Write.
type WriteInput struct {
	FilePath string  `json:"file_path" validate:"required" jsonschema:"The absolute path to the file to write (must be absolute, not relative)"`
	Content  *string `json:"content" validate:"required" jsonschema:"The content to write to the file"`
}

// EditInput is Claude Code's Edit.
type EditInput struct {
	FilePath   string  `json:"file_path" validate:"required" jsonschema:"The absolute path to the file to modify"`
	OldString  *string `json:"old_string" validate:"required" jsonschema:"The text to replace"`
	NewString  *string `json:"new_string" validate:"required" jsonschema:"The text to replace it with (must be different from old_string)"`
	ReplaceAll bool    `json:"replace_all,omitempty" jsonschema:"Replace all occurences of old_string (default false)"`
}

// MultiEditInput is Claude Code's MultiEdit.
type MultiEditInput struct {
	FilePath string          `json:"file_path" validate:"required" jsonschema:"The absolute path to the file to modify"`
	Edits    []MultiEditItem `json:"edits" validate:"required,min=1,dive" jsonschema:"Array of edit operations to perform sequentially on the file"`
}

// MultiEditItem is one edit of MultiEdit: Claude Code requires old_string
// and new_string in each, as in Edit.
type MultiEditItem struct {
	OldString  *string `json:"old_string" validate:"required" jsonschema:"The text to replace"`
	NewString  *string `json:"new_string" validate:"required" jsonschema:"The text to replace it with"`
	ReplaceAll bool    `json:"replace_all,omitempty" jsonschema:"Replace all occurences of old_string (default false)"`
}

// BashInput is Claude Code's Bash.
type BashInput struct {
	Command string `json:"command" validate:"required" jsonschema:"The command to execute"`
	// Timeout past the maximum runs with the maximum, as Claude Code caps
	// it (its schema sets no maximum).
	Timeout         float64 `json:"timeout,omitempty" validate:"omitempty,min=1" jsonschema:"Optional timeout in milliseconds (max 600000)"`
	Description     string  `json:"description,omitempty" jsonschema:"Clear, concise description of what this command does in 5-10 words"`
	RunInBackground bool    `json:"run_in_background,omitempty" jsonschema:"Set to true to run this command in the background. Use BashOutput to read the output later."`
	// DangerouslyDisableSandbox runs the command outside the sandbox: the
	// user is asked every time, and the managed policy may refuse it.
	DangerouslyDisableSandbox bool `json:"dangerouslyDisableSandbox,omitempty" jsonschema:"Set to true to run this command outside the sandbox. The user is asked every time; the policy may refuse it."`
}

// GlobInput is Claude Code's Glob.
type GlobInput struct {
	Pattern string `json:"pattern" validate:"required" jsonschema:"The glob pattern to match files against"`
	Path    string `json:"path,omitempty" jsonschema:"The directory to search in. If not specified, the current working directory will be used."`
}

// LSInput is Claude Code's LS.
type LSInput struct {
	Path   string   `json:"path" validate:"required" jsonschema:"The absolute path to the directory to list (must be absolute, not relative)"`
	Ignore []string `json:"ignore,omitempty" jsonschema:"List of glob patterns to ignore"`
}

// ClaudeNotebookEditInput is Claude Code's NotebookEdit.
type ClaudeNotebookEditInput struct {
	NotebookPath string  `json:"notebook_path" validate:"required" jsonschema:"The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"`
	CellID       string  `json:"cell_id,omitempty" jsonschema:"The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified."`
	NewSource    *string `json:"new_source" validate:"required" jsonschema:"The new source for the cell"`
	CellType     string  `json:"cell_type,omitempty" validate:"omitempty,oneof=code markdown" jsonschema:"The type of the cell (code or markdown). Required for edit_mode=insert."`
	EditMode     string  `json:"edit_mode,omitempty" validate:"omitempty,oneof=replace insert delete" jsonschema:"The type of edit to make (replace, insert, delete). Defaults to replace."`
}

// TaskInput is Claude Code's Task.
type TaskInput struct {
	Description  string `json:"description" validate:"required" jsonschema:"A short (3-5 word) description of the task"`
	Prompt       string `json:"prompt" validate:"required" jsonschema:"The task for the agent to perform"`
	SubagentType string `json:"subagent_type" validate:"required" jsonschema:"The type of specialized agent to use for this task"`
}

// ClaudeWebFetchInput is Claude Code's WebFetch.
type ClaudeWebFetchInput struct {
	URL    string `json:"url" validate:"required,url" jsonschema:"The URL to fetch content from"`
	Prompt string `json:"prompt" validate:"required" jsonschema:"The prompt to run on the fetched content"`
}

// WebSearchInput is Claude Code's WebSearch.
type WebSearchInput struct {
	Query          string   `json:"query" validate:"required,min=2" jsonschema:"The search query to use"`
	AllowedDomains []string `json:"allowed_domains,omitempty" jsonschema:"Only include search results from these domains"`
	BlockedDomains []string `json:"blocked_domains,omitempty" jsonschema:"Never include search results from these domains"`
}

// BashOutputInput is Claude Code's BashOutput.
type BashOutputInput struct {
	BashID string `json:"bash_id" validate:"required" jsonschema:"The ID of the background shell to retrieve output from"`
	Filter string `json:"filter,omitempty" jsonschema:"Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."`
}

// KillShellClaudeInput is Claude Code's KillShell.
type KillShellClaudeInput struct {
	ShellID string `json:"shell_id" validate:"required" jsonschema:"The ID of the background shell to kill"`
}

// TodoWriteInput is Claude Code's TodoWrite: the whole list each time.
type TodoWriteInput struct {
	Todos []TodoItem `json:"todos" validate:"required,dive" jsonschema:"The updated todo list"`
}

// TodoItem is one task of TodoWrite's list. Claude Code 2.1 requires
// activeForm and lists no id.
type TodoItem struct {
	Content    string `json:"content" validate:"required" jsonschema:"What to do, imperative (Run the tests)"`
	Status     string `json:"status" validate:"required,oneof=pending in_progress completed" jsonschema:"pending, in_progress or completed"`
	ActiveForm string `json:"activeForm" validate:"required" jsonschema:"The task while it runs (Running the tests)"`
}

// UnmarshalJSON decodes an item as Claude Code's schema check reads it:
// keys it does not list (an id, which older versions had) are dropped,
// not refused.
func (t *TodoItem) UnmarshalJSON(b []byte) error {
	type plain TodoItem
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = TodoItem(p)
	return nil
}
