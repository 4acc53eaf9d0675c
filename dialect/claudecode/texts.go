package claudecode

import (
	"fmt"
	"path"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// Result texts of Claude Code 2.1's file tools, as the conformance harness
// (internal/conformance/claudecode) records them from the real CLI.

// fileStateNote ends Claude Code's answer to a successful Write or Edit.
const fileStateNote = " (file state is current in your context — no need to Read it back)"

// cwdNote follows Claude Code's "does not exist" answers.
func cwdNote(env tool.MapEnv) string {
	return " Note: your current working directory is " + env.Workspace.Dir + "."
}

// toolUseError is a refusal as Claude Code words those of a tool's input
// check, which runs before the tool: wrapped in <tool_use_error>.
func toolUseError(text string) tool.Result {
	return tool.ErrorResult("<tool_use_error>" + text + "</tool_use_error>")
}

// readErrors words read_lines's refusals as Claude Code's Read does: a
// missing file or a directory fail in the read itself, a binary file in
// the input check.
func readErrors(env tool.MapEnv, abs string) func(tool.Result, string) tool.Result {
	return func(res tool.Result, code string) tool.Result {
		switch code {
		case "":
			if res.LastText() == handlers.ReadUnchanged {
				return tool.TextResult("Wasted call — file unchanged since your last Read. Refer to that earlier tool_result instead.")
			}
			return res
		case api.ToolCodeNotFound:
			return tool.ErrorResult("File does not exist." + cwdNote(env))
		case api.ToolCodeIsDirectory:
			return tool.ErrorResult(fmt.Sprintf("EISDIR: illegal operation on a directory, read '%s'", abs))
		case api.ToolCodeBinaryFile:
			return toolUseError(fmt.Sprintf("This tool cannot read binary files. The file appears to be a binary %s file. "+
				"Please use appropriate tools for binary file analysis.", path.Ext(abs)))
		}
		return claudeCodeErrors(res, code)
	}
}

// writeResult words write_file's answers as Claude Code's Write does;
// given is the file_path as the model gave it, which the answer repeats.
func writeResult(given string) func(tool.Result, string) tool.Result {
	return func(res tool.Result, code string) tool.Result {
		switch {
		case code == api.ToolCodeIsDirectory:
			// A directory was never read, which is what Claude Code checks first.
			return toolUseError("File has not been read yet. Read it first before writing to it.")
		case code != "":
			return wrapped(claudeCodeErrors(res, code), code)
		case strings.HasPrefix(res.LastText(), "Created "):
			return tool.TextResult("File created successfully at: " + given + fileStateNote)
		}
		return tool.TextResult("The file " + given + " has been updated successfully." + fileStateNote)
	}
}

// claudeEditResult words edit_text's answers as Claude Code's Edit does.
func claudeEditResult(env tool.MapEnv, given string, in *EditInput) func(tool.Result, string) tool.Result {
	return func(res tool.Result, code string) tool.Result {
		switch {
		case code == api.ToolCodeNotFound:
			return toolUseError("File does not exist." + cwdNote(env))
		case code != "":
			return wrapped(editErrors(res, code, *in.OldString), code)
		case in.ReplaceAll:
			return tool.TextResult("The file " + given + " has been updated. All occurrences were successfully replaced." + fileStateNote)
		}
		return tool.TextResult("The file " + given + " has been updated successfully." + fileStateNote)
	}
}

// checkedCodes are the refusals Claude Code's file tools make in their
// input check, so that it wraps them in <tool_use_error>.
var checkedCodes = map[string]bool{
	api.ToolCodeReadRequired: true, api.ToolCodeFileChanged: true, api.ToolCodeNotFound: true,
	api.ToolCodeNoMatch: true, api.ToolCodeMultipleMatches: true, api.ToolCodeNoChange: true, api.ToolCodeFileExists: true,
	api.ToolCodeCellNotFound: true,
}

// wrapped wraps a reworded refusal whose code Claude Code checks before
// the tool runs.
func wrapped(res tool.Result, code string) tool.Result {
	if !checkedCodes[code] || !res.IsError {
		return res
	}
	return toolUseError(res.LastText())
}

// notebookResult words notebook_edit's answers as Claude Code's
// NotebookEdit does.
func notebookResult(in *ClaudeNotebookEditInput) func(tool.Result, string) tool.Result {
	return func(res tool.Result, code string) tool.Result {
		switch {
		case code == api.ToolCodeCellNotFound:
			return toolUseError(fmt.Sprintf("Cell with ID %q not found in notebook.", in.CellID))
		case code != "":
			return wrapped(claudeCodeErrors(res, code), code)
		case in.EditMode == "insert":
			return tool.TextResult(res.LastText() + " with " + *in.NewSource)
		}
		return res
	}
}
