package cline

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/process"
)

// Texts are Cline's words for the results of the registry's tools, byte
// for byte as Cline answers them, so that a model taught by Cline's system
// prompt reads what it expects. They are the default dialect's texts, so
// they also word the results of a session that names no dialect and of
// the dialects that have no texts of their own.
type Texts struct{}

var _ tool.Texts = Texts{}

// ToolError is Cline's formatResponse.toolError
// (apps/vscode/src/core/prompts/responses.ts, v4.0.12).
func (Texts) ToolError(msg string) string { return toolError(msg) }

func toolError(msg string) string { return toolErrorHead + "<error>\n" + msg + "\n</error>" }

// toolErrorHead is the first line of a tool error.
const toolErrorHead = "The tool execution failed with the following error:\n"

// FileSaved is what Cline answers after write_to_file, replace_in_file
// and new_rule (fileSaved), without the file's body when omitBody
// (droppedContent).
func (Texts) FileSaved(rel string, written []byte, modelContent string, omitBody bool) string {
	saved := fileSaved(rel, finalContent(rel, written, modelContent))
	if omitBody {
		saved = droppedContent(saved)
	}
	return saved
}

// PatchApplied is Cline's answer to an applied patch (core/task/tools/
// handlers/ApplyPatchHandler.ts, v4.0.12, execute): its first line, then
// per file, in the patch's order, the final content in
// <final_file_content> as DiffViewProvider.saveChanges gives it (a moved
// file under its new path, then its old path as deleted), or "[deleted]",
// the lines joined by line ends. With omitBody each element holds the
// note Cline's context management leaves in place of a dropped body.
func (Texts) PatchApplied(files []tool.PatchedFile, omitBody bool) string {
	lines := []string{"Successfully applied patch to the following files:"}
	for _, f := range files {
		if f.Deleted {
			lines = append(lines, "\n"+f.Rel+": [deleted]")
			continue
		}
		body := finalContent(f.Rel, f.Content, "")
		switch {
		case body == "" || body == "\n":
			// Cline adds nothing for an empty finalContent
		case omitBody:
			lines = append(lines, "\n<final_file_content path=\""+f.Rel+"\"> "+duplicateFileReadNotice+" </final_file_content>")
		default:
			lines = append(lines, "\n<final_file_content path=\""+f.Rel+"\">", body, "</final_file_content>")
		}
	}
	return strings.Join(lines, "\n")
}

// EditFailed is Cline's answer to a failed replace_in_file: the reason
// (diff.ts's message for a SEARCH block that matched nothing) and
// formatResponse.diffError, wrapped as a tool error.
func (Texts) EditFailed(msg, search, rel, original string) string {
	switch {
	case search != "":
		msg = searchMissed(search)
	case strings.Contains(msg, emptySearchOnFile):
		msg = emptySearch
	}
	return toolError(msg + "\n\n" + diffError(rel, original))
}

// FileList is formatResponse.formatFilesList: the entries in Cline's
// order, locked ones behind Cline's lock.
func (Texts) FileList(entries []string, locked func(string) bool, hitLimit bool) string {
	sortFiles(entries)
	return filesList(entries, locked, hitLimit)
}

// ReadKey is the key of Cline's fileReadCache (ReadFileToolHandler.ts):
// the path in lower case, so one file read under two spellings counts once.
func (Texts) ReadKey(rel string) string { return strings.ToLower(rel) }

// RepeatedRead is Cline's note before a file read again unchanged
// (repeatedRead).
func (Texts) RepeatedRead(path string, count int) string { return repeatedRead(path, count) }

// Notebook is a notebook as Cline's read_file shows it (notebookText).
func (Texts) Notebook(data []byte) string { return notebookText(data) }

// CommandOutput is a command's output as Cline's terminal shapes it
// (commandOutput), where naming toolgate's output route instead of
// Cline's log file.
func (Texts) CommandOutput(e process.Ends, firstChunk int64, where string) (string, bool) {
	return commandOutput(e, firstChunk, where)
}

// CommandResult is Cline's result of a finished command
// (integrations/terminal/CommandOrchestrator.ts, orchestrateCommandExecution):
// the exit status in a sentence, then the output, if any, after "Output:",
// then where the whole output is when part was left out.
func (Texts) CommandResult(res process.Result, output, spilledTo string) string {
	var text string
	switch {
	case res.Signal != "" && res.ExitCode <= 0:
		text = fmt.Sprintf("Command terminated by signal %s.", res.Signal)
	case res.ExitCode == 0:
		text = "Command executed successfully (exit code 0)."
	default:
		text = fmt.Sprintf("Command failed with exit code %d.", res.ExitCode)
	}
	if output != "" {
		text += "\nOutput:\n" + output
	}
	if spilledTo != "" {
		text += fullOutputNote + spilledTo
	}
	return text
}

// CommandTimedOut is Cline's result of a command that outran its timeout
// (integrations/terminal/CommandOrchestrator.ts, orchestrateCommandExecution,
// the terminal without background tracking), the seconds as JavaScript
// prints the number, the space before the output included.
func (Texts) CommandTimedOut(timeout time.Duration, output string) string {
	text := "Command execution timed out after " + strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64) + " seconds. "
	if output != "" {
		text += "\nOutput so far:\n" + output
	}
	return text
}

// jsSpace reports the characters JavaScript's String.prototype.trim
// removes: white space, line terminators and the byte order mark.
func jsSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// MissingParam is what Cline's handler answers for a missing required
// parameter (missingText).
func (Texts) MissingParam(tool, param, path string, mistakes int) string {
	return missingText(tool, param, path, mistakes)
}

// IgnoredPath is formatResponse.clineIgnoreError.
func (Texts) IgnoredPath(path string) string { return ignoreError(path) }

// CallDescription is the description Cline's handler gives a call
// (toolDescription).
func (Texts) CallDescription(tool string, raw json.RawMessage) string {
	return toolDescription(tool, raw)
}

// PolicyRefusal is a refusal as Cline's tool error (policyRefusal).
func (Texts) PolicyRefusal(tool, code string, content []api.Content) []api.Content {
	return policyRefusal(tool, code, content)
}

// Rejected is Cline's answer to a call the user rejected (rejected).
func (Texts) Rejected(tool string, fileExists bool, comment string) []api.Content {
	return rejected(tool, fileExists, comment)
}

// ApprovalFeedback is Cline's pushAdditionalToolFeedback text (feedback).
func (Texts) ApprovalFeedback(comment string) string { return feedback(comment) }

// MCPResult is an MCP tool's result as Cline gives it (mcpResult).
func (Texts) MCPResult(a tool.MCPAnswer) []api.Content { return mcpResult(a) }

// MCPResource is a resource as Cline gives it (mcpResource).
func (Texts) MCPResource(a tool.MCPAnswer) []api.Content { return mcpResource(a) }

// MCPBadArguments is formatResponse.invalidMcpToolArgumentError.
func (Texts) MCPBadArguments(server, toolName string) string {
	return invalidMCPArguments(server, toolName)
}

// MCPFailed is UseMcpToolHandler.execute's answer to a call that threw
// (Cline v4.0.12): not wrapped as a tool error.
func (Texts) MCPFailed(msg string) string { return "Error executing MCP tool: " + msg }

// DefinitionsPathError is how Cline's parseSourceCodeForDefinitionsTopLevel
// (services/tree-sitter/index.ts, v4.0.12) words a path that is no
// directory, which ListCodeDefinitionNamesToolHandler.execute returns as
// a tool error: a file, and a directory that is not there or cannot be
// read.
func (Texts) DefinitionsPathError(code string) string {
	switch code {
	case api.ToolCodeNotDirectory:
		return "The provided path is a file, not a directory. To view this file use read_file instead, " +
			"or pass the parent directory to list_code_definition_names."
	case api.ToolCodeNotFound, api.ToolCodePermission:
		return "This directory does not exist or you do not have permission to access it."
	}
	return ""
}
