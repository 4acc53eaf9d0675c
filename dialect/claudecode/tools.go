// Package claudecode is Claude Code's dialect: its tools, with the
// parameters and result texts its tool docs give
// (docs.anthropic.com/en/docs/claude-code/settings#tools-available-to-claude
// and the tools' own prompts), mapped onto the registry's tools.
package claudecode

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// textEdits turns MultiEdit's validated items into edit_text's edits.
func textEdits(items []MultiEditItem) []handlers.TextEdit {
	out := make([]handlers.TextEdit, len(items))
	for i, e := range items {
		out[i] = handlers.TextEdit{OldString: *e.OldString, NewString: *e.NewString, ReplaceAll: e.ReplaceAll}
	}
	return out
}

// claudeCodeAbs checks a Claude Code path parameter: a relative path is
// taken from the workspace, as Claude Code takes it from its working
// directory, and toolgate serves only its workspace.
func claudeCodeAbs(env tool.MapEnv, param, p string) (string, error) {
	if !filepath.IsAbs(filepath.FromSlash(p)) {
		p = filepath.Join(env.Workspace.Dir, filepath.FromSlash(p))
	}
	if _, err := env.Workspace.Rel(p); err != nil {
		return "", err
	}
	return p, nil
}

// claudeCodeErrors words toolgate's refusals as Claude Code's tools do.
func claudeCodeErrors(res tool.Result, code string) tool.Result {
	text := ""
	switch code {
	case api.ToolCodeReadRequired:
		text = "File has not been read yet. Read it first before writing to it."
	case api.ToolCodeFileChanged:
		text = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
	case api.ToolCodeNotFound:
		text = "File does not exist."
	default:
		return res
	}
	return tool.ErrorResult(text)
}

var occurrences = regexp.MustCompile(`occurs (\d+) times`)

// editErrors words edit_text's refusals as Claude Code's Edit does.
func editErrors(res tool.Result, code, oldString string) tool.Result {
	text := ""
	switch code {
	case api.ToolCodeNoMatch:
		text = "String to replace not found in file.\nString: " + oldString
	case api.ToolCodeMultipleMatches:
		n := "several"
		if m := occurrences.FindStringSubmatch(res.LastText()); m != nil {
			n = m[1]
		}
		text = fmt.Sprintf("Found %s matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. "+
			"To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s", n, oldString)
	case api.ToolCodeFileExists:
		text = "Cannot create new file - file already exists."
	default:
		return claudeCodeErrors(res, code)
	}
	return tool.ErrorResult(text)
}

func claudeRead() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[ReadInput]{
		Name: "Read",
		Description: "Reads a file from the local filesystem. The file_path parameter must be an absolute path. By default, it reads up to 2000 lines " +
			"starting from the beginning of the file; offset and limit read further. Lines longer than 2000 characters are truncated. " +
			"Results are returned using cat -n format, with line numbers starting at 1. Images (PNG, JPG, GIF, WebP) are shown as images; " +
			"Jupyter notebooks (.ipynb) as their cells with outputs, PDFs whole as documents, or pages of them as images with pages " +
			"(rendered by poppler's pdftoppm, at most 20 a call).",
		Targets: []string{"read_lines", "read_output"},
		Map: func(env tool.MapEnv, in *ReadInput) (tool.Mapping, error) {
			p, err := claudeCodeAbs(env, "file_path", in.FilePath)
			if outside(err) && filepath.IsAbs(filepath.FromSlash(in.FilePath)) {
				// Perhaps one of the session's output files, which Bash's
				// answers name; read_output refuses any other path as
				// outside the workspace.
				p = filepath.FromSlash(in.FilePath)
				return tool.Mapping{Tool: "read_output", Input: handlers.ReadOutputInput{Path: p, Offset: in.Offset, Limit: in.Limit},
					Result: readErrors(env, p)}, nil
			}
			if err == nil {
				err = checkPages(in.Pages)
			}
			return tool.Mapping{Tool: "read_lines", Input: handlers.ReadLinesInput{Path: p, Offset: in.Offset, Limit: in.Limit, Pages: in.Pages,
				Split: true, Unchanged: true, Documents: true}, Result: readErrors(env, p)}, err
		},
	})
}

// outside reports a refusal of a path outside the workspace.
func outside(err error) bool {
	var te *tool.ToolError
	return errors.As(err, &te) && te.Code == api.ToolCodeOutside
}

// checkPages refuses a pages parameter as Claude Code's Read checks it,
// before anything is read.
func checkPages(pages string) error {
	if pages == "" {
		return nil
	}
	p, ok := handlers.ParsePDFPages(pages)
	switch {
	case !ok:
		return tool.Errorf(api.ToolCodeInvalid, "<tool_use_error>Invalid pages parameter: \"%s\". Use formats like \"1-5\", \"3\", or \"10-20\". "+
			"Pages are 1-indexed.</tool_use_error>", pages)
	case p.Count() > 20:
		return tool.Errorf(api.ToolCodeInvalid, "<tool_use_error>Page range \"%s\" exceeds maximum of 20 pages per request. "+
			"Please use a smaller range.</tool_use_error>", pages)
	}
	return nil
}

func claudeWrite() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[WriteInput]{
		Name: "Write",
		Description: "Writes a file to the local filesystem, overwriting an existing file. An existing file must have been read with Read first. " +
			"The file_path parameter must be an absolute path.",
		Targets: []string{"write_file"},
		Map: func(env tool.MapEnv, in *WriteInput) (tool.Mapping, error) {
			p, err := claudeCodeAbs(env, "file_path", in.FilePath)
			return tool.Mapping{Tool: "write_file", Input: handlers.WriteToFileInput{Path: p, Content: in.Content},
				Result: writeResult(in.FilePath)}, err
		},
	})
}

func claudeEdit() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[EditInput]{
		Name: "Edit",
		Description: "Performs exact string replacements in files. The file must have been read with Read in this conversation first. " +
			"The edit fails if old_string is not unique in the file unless replace_all is set; old_string and new_string must differ.",
		Targets: []string{"edit_text"},
		Map: func(env tool.MapEnv, in *EditInput) (tool.Mapping, error) {
			p, err := claudeCodeAbs(env, "file_path", in.FilePath)
			edit := handlers.TextEdit{OldString: *in.OldString, NewString: *in.NewString, ReplaceAll: in.ReplaceAll}
			if err == nil {
				err = noChange([]handlers.TextEdit{edit})
			}
			if err == nil {
				err = notebookRefused(env, p)
			}
			edit.NewString = trimLineEnds(p, edit.NewString)
			return tool.Mapping{Tool: "edit_text", Input: handlers.EditTextInput{Path: p, Edits: []handlers.TextEdit{edit}, RequireRead: true, FoldQuotes: true},
				Result: claudeEditResult(env, in.FilePath, in)}, err
		},
	})
}

func claudeMultiEdit() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[MultiEditInput]{
		Name: "MultiEdit",
		Description: "Makes several edits to a single file in one operation, in order, each on the result of the previous one. " +
			"All edits succeed or none are applied. Each edit follows Edit's rules.",
		Targets: []string{"edit_text"},
		Map: func(env tool.MapEnv, in *MultiEditInput) (tool.Mapping, error) {
			edits := textEdits(in.Edits)
			p, err := claudeCodeAbs(env, "file_path", in.FilePath)
			if err == nil {
				err = noChange(edits)
			}
			return tool.Mapping{Tool: "edit_text", Input: handlers.EditTextInput{Path: p, Edits: edits, RequireRead: true},
				Result: func(res tool.Result, code string) tool.Result {
					if code != "" {
						old := ""
						if m := regexp.MustCompile(`^Edit (\d+):`).FindStringSubmatch(res.LastText()); m != nil {
							var i int
							fmt.Sscan(m[1], &i)
							old = edits[i-1].OldString
						}
						return editErrors(res, code, old)
					}
					var b strings.Builder
					fmt.Fprintf(&b, "Applied %d %s to %s:", len(edits), plural(len(edits), "edit"), p)
					for i, e := range edits {
						fmt.Fprintf(&b, "\n%d. Replaced %q with %q", i+1, clip(e.OldString), clip(e.NewString))
					}
					return tool.TextResult(b.String())
				}}, err
		},
	})
}

// clip shortens a string for a one-line summary.
func clip(s string) string {
	if c := handlers.CutChars(s, 50); c != s {
		return c + "..."
	}
	return s
}

func claudeBash() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[BashInput]{
		Name: "Bash",
		Description: "Executes a bash command in the workspace with an optional timeout (milliseconds, up to 600000; default 120000). " +
			"The working directory a successful command cds to is kept for the next command, inside the workspace. " +
			"run_in_background starts it as a background shell of the session: read its output with BashOutput and stop it with KillShell.",
		Targets: []string{"execute_command"},
		Map: func(env tool.MapEnv, in *BashInput) (tool.Mapping, error) {
			cwd := env.Dir.Get()
			if in.RunInBackground {
				return tool.Mapping{Tool: "execute_command", Input: handlers.ExecuteCommandInput{Command: in.Command, RequiresApproval: new(false),
					Cwd: cwd, Background: true, OutputFile: true}, Result: backgroundStarted, Unsandboxed: in.DangerouslyDisableSandbox}, nil
			}
			ms := bashDefaultTimeout
			if in.Timeout > 0 {
				ms = min(int(in.Timeout), bashMaxTimeout)
			}
			return tool.Mapping{Tool: "execute_command", Input: handlers.ExecuteCommandInput{Command: in.Command, RequiresApproval: new(false),
				Cwd: cwd, Timeout: (ms + 999) / 1000, SaveOver: bashOutputLimit},
				Result: func(res tool.Result, code string) tool.Result {
					if code == api.ToolCodeTimedOut {
						// SIGTERM's status, as the shell reports it.
						return tool.ErrorResult("Exit code 143\nCommand timed out after " + jsDuration(ms))
					}
					if saved, ok := persistedOutput(res); ok && code == "" {
						return keepDir(env, cwd, in.Command, saved)
					}
					res = bashResult(res, code)
					if code == "" {
						res = noOutput(keepDir(env, cwd, in.Command, res))
					}
					return res
				}, Unsandboxed: in.DangerouslyDisableSandbox}, nil
		},
	})
}

// bashResult is a command's output as Claude Code's Bash shows it: the
// output alone when the command succeeded, "Exit code N" then the output
// when it failed. execute_command words its result as Cline does (a
// sentence on the exit status, then "Output:"), which this undoes.
func bashResult(res tool.Result, code string) tool.Result {
	if len(res.Content) == 0 || res.Content[0].Type != api.TypeText {
		return res
	}
	// Claude Code shows the output without its last line end.
	res.Content[0].Text = strings.TrimSuffix(res.Content[0].Text, "\n")
	head, body, _ := strings.Cut(res.Content[0].Text, "\n")
	output := strings.TrimPrefix(body, "Output:\n")
	var exit int
	switch {
	case head == "Command executed successfully (exit code 0).":
		res.Content[0].Text = output
	case fmtScan(head, "Command failed with exit code %d.", &exit):
		res.Content[0].Text = strings.TrimSuffix("Exit code "+fmt.Sprint(exit)+"\n"+output, "\n")
	}
	return res
}

// Bash's timeouts in milliseconds: when none is given, and the most a
// call gets (a larger one is cut to it, as Claude Code cuts it).
const (
	bashDefaultTimeout = 120000
	bashMaxTimeout     = 600000
)

// noOutput is Claude Code's answer to a command that succeeded and printed
// nothing: a sentence saying so, where an empty result would leave the
// model guessing.
func noOutput(res tool.Result) tool.Result {
	if len(res.Content) == 1 && res.Content[0].Type == api.TypeText && res.Content[0].Text == "" {
		res.Content[0].Text = "(Bash completed with no output)"
	}
	return res
}

// startedJob finds the job id in execute_command's answer to a
// background start.
var startedJob = regexp.MustCompile(`^Started in the background as job (\S+)\.`)

// backgroundStarted is Claude Code's answer to run_in_background: the
// job's id and the file of the session's output files that holds its
// output, which Read opens.
func backgroundStarted(res tool.Result, code string) tool.Result {
	if code != "" || len(res.Content) == 0 {
		return res
	}
	m := startedJob.FindStringSubmatch(res.Content[0].Text)
	if m == nil {
		return res
	}
	if file, ok := handlers.ParseJobOutputFile(res.LastText()); ok {
		return tool.TextResult("Command running in background with ID: " + m[1] + ". Output is being written to: " + file +
			". You will be notified when it completes. To check interim output, use Read on that file path.")
	}
	return tool.TextResult("Command running in background with ID: " + m[1])
}

// jsDuration words a duration in milliseconds as Claude Code does in
// its timeout message: seconds under a minute, else minutes and seconds.
func jsDuration(ms int) string {
	s := ms / 1000
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm %ds", s/60, s%60)
}

// fmtScan reports whether s is format filled in (one verb).
func fmtScan(s, format string, arg any) bool {
	n, err := fmt.Sscanf(s, format, arg)
	return err == nil && n == 1
}

func claudeLS() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[LSInput]{
		Name:        "LS",
		Description: "Lists files and directories in a given path. The path parameter must be an absolute path. ignore takes glob patterns to leave out.",
		Targets:     []string{"list_tree"},
		Map: func(env tool.MapEnv, in *LSInput) (tool.Mapping, error) {
			p, err := claudeCodeAbs(env, "path", in.Path)
			return tool.Mapping{Tool: "list_tree", Input: handlers.ListTreeInput{Path: p, Ignore: in.Ignore}}, err
		},
	})
}

func claudeTodoWrite() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[TodoWriteInput]{
		Name: "TodoWrite",
		Description: "Create and manage a structured task list for the session: the whole list each time, every task with content, " +
			"status (pending, in_progress, completed) and activeForm. The list is shown to the user.",
		Targets: []string{"todo_write"},
		Map: func(env tool.MapEnv, in *TodoWriteInput) (tool.Mapping, error) {
			todos := make([]handlers.TodoItem, len(in.Todos))
			for i, t := range in.Todos {
				todos[i] = handlers.TodoItem{Content: t.Content, Status: t.Status, ActiveForm: t.ActiveForm}
			}
			return tool.Mapping{Tool: "todo_write", Input: handlers.TodoWriteInput{Todos: todos}}, nil
		},
	})
}

func claudeNotebookEdit() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[ClaudeNotebookEditInput]{
		Name: "NotebookEdit",
		Description: "Replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source, inserts a new cell " +
			"(edit_mode=insert) or deletes one (edit_mode=delete). notebook_path must be absolute; the notebook must have been read first.",
		Targets: []string{"notebook_edit"},
		Map: func(env tool.MapEnv, in *ClaudeNotebookEditInput) (tool.Mapping, error) {
			p, err := claudeCodeAbs(env, "notebook_path", in.NotebookPath)
			if err == nil && !strings.EqualFold(filepath.Ext(p), ".ipynb") {
				err = tool.Errorf(api.ToolCodeInvalidNotebook, "<tool_use_error>File must be a Jupyter notebook (.ipynb file). "+
					"For editing other file types, use the FileEdit tool.</tool_use_error>")
			}
			return tool.Mapping{Tool: "notebook_edit", Result: notebookResult(in), Input: handlers.NotebookEditInput{
				Path: p, CellID: in.CellID, NewSource: *in.NewSource, CellType: in.CellType, EditMode: in.EditMode}}, err
		},
	})
}

func claudeTask() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[TaskInput]{
		Name: "Task",
		Description: "Launch a new agent to handle a complex, multi-step task autonomously. subagent_type names one of the agents " +
			"configured for this toolgate (its use_subagent_<name> tool).",
		Targets: []string{tool.SubagentPrefix + "*"},
		Map: func(env tool.MapEnv, in *TaskInput) (tool.Mapping, error) {
			name := tool.SubagentPrefix + in.SubagentType
			if !env.Has(name) {
				return tool.Mapping{}, tool.Errorf(api.ToolCodeNotFound, "Agent type '%s' not found: no agent of that name is configured.", in.SubagentType)
			}
			return tool.Mapping{Tool: name, Input: map[string]string{"prompt": in.Prompt}}, nil
		},
	})
}

// webFetchTool is the registry tool WebFetch maps onto when it exists.
const webFetchTool = "web_fetch"

func claudeWebFetch() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[ClaudeWebFetchInput]{
		Name:        "WebFetch",
		Description: "Fetches content from a URL and answers the prompt about it.",
		Targets:     []string{webFetchTool},
		Map: func(env tool.MapEnv, in *ClaudeWebFetchInput) (tool.Mapping, error) {
			if !env.Has(webFetchTool) {
				return tool.Mapping{}, tool.Errorf(api.ToolCodeNotOwned, "Tool WebFetch is handled by the client, not by toolgate (no web_fetch is configured).")
			}
			return tool.Mapping{Tool: webFetchTool, Input: handlers.WebFetchInput{URL: in.URL, Prompt: in.Prompt}, Result: webFetchStatus}, nil
		},
	})
}

// httpRefusal finds the status in web_fetch's answer to an HTTP error.
var httpRefusal = regexp.MustCompile(`^\S+ answered (\d{3} [^\n]*?)\.(\n|$)`)

// webFetchStatus words an HTTP error status as Claude Code 2.1's WebFetch
// does: not a failure, a note that the body was not read.
func webFetchStatus(res tool.Result, code string) tool.Result {
	m := httpRefusal.FindStringSubmatch(res.LastText())
	if code != api.ToolCodeFetchFailed || m == nil {
		return res
	}
	return tool.TextResult("The server returned HTTP " + m[1] + ".\n\nThe response body was not retrieved. If this URL requires " +
		"authentication, use an authenticated tool (e.g. `gh` for GitHub, or an MCP-provided fetch tool) instead of WebFetch.")
}

func claudeWebSearch() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[WebSearchInput]{
		Name:        "WebSearch",
		Description: "Searches the web.",
		Targets:     []string{"web_search"},
		Map: func(env tool.MapEnv, in *WebSearchInput) (tool.Mapping, error) {
			return tool.Mapping{}, tool.Errorf(api.ToolCodeNotOwned, "Tool WebSearch is handled by the client, not by toolgate.")
		},
	})
}

// Dialect is Claude Code's tool set. Its mappings word the results
// themselves, so handlers answer it plainly.
func Dialect() tool.Dialect {
	return tool.Dialect{Name: api.DialectClaudeCode, PlainResults: true, Tools: []*tool.DialectTool{
		claudeTask(), claudeBash(), claudeGlob(), claudeGrep(), claudeLS(), claudeRead(), claudeEdit(), claudeMultiEdit(),
		claudeWrite(), claudeNotebookEdit(), claudeWebFetch(), claudeTodoWrite(), claudeWebSearch(),
		claudeBashOutput(), claudeKillShell(), claudeTaskOutput(), claudeTaskStop(),
	}, InvalidInput: claudeInvalidInput, UnknownTool: func(name string) string {
		return "<tool_use_error>Error: No such tool available: " + name + "</tool_use_error>"
	}}
}

func claudeBashOutput() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[BashOutputInput]{
		Name:        "BashOutput",
		Description: "Retrieves output from a running or completed background bash shell: only the output written since the last check, with the shell's status.",
		Targets:     []string{"shell_output"},
		Map: func(env tool.MapEnv, in *BashOutputInput) (tool.Mapping, error) {
			return tool.Mapping{Tool: "shell_output", Input: handlers.ShellOutputInput{ID: in.BashID, Filter: in.Filter}}, nil
		},
	})
}

func claudeKillShell() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[KillShellClaudeInput]{
		Name:        "KillShell",
		Description: "Kills a running background bash shell by its ID.",
		Targets:     []string{"kill_shell"},
		Map: func(env tool.MapEnv, in *KillShellClaudeInput) (tool.Mapping, error) {
			return tool.Mapping{Tool: "kill_shell", Input: handlers.KillShellInput{ID: in.ShellID}}, nil
		},
	})
}

// plural is word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
