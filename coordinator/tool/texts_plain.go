package tool

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/process"
)

// PlainTexts is the wording of a coordinator that has no dialect to word
// results (no Dialect.Texts among its dialects): short, neutral
// sentences, the file or output itself after them. A toolgate built with
// its dialects (cmd/toolgate) never uses them: a session that names no
// dialect speaks the default one, which has texts.
type PlainTexts struct{}

var _ Texts = PlainTexts{}

// ToolError is the message itself.
func (PlainTexts) ToolError(msg string) string { return msg }

// FileSaved names the file, then its content.
func (PlainTexts) FileSaved(rel string, written []byte, _ string, omitBody bool) string {
	if omitBody {
		return "Saved " + rel + "."
	}
	return "Saved " + rel + ":\n" + string(written)
}

// PatchApplied lists the files.
func (PlainTexts) PatchApplied(files []PatchedFile, _ bool) string {
	lines := []string{"Patched:"}
	for _, f := range files {
		if f.Deleted {
			lines = append(lines, f.Rel+" (deleted)")
			continue
		}
		lines = append(lines, f.Rel)
	}
	return strings.Join(lines, "\n")
}

// EditFailed says what missed, then the file as it is.
func (PlainTexts) EditFailed(msg, search, rel, original string) string {
	if search != "" {
		msg = "The SEARCH block matched nothing in " + rel + ":\n" + search
	}
	return msg + "\n\nThe file " + rel + " is unchanged:\n" + original
}

// FileList is the entries sorted, one a line, locked ones marked.
func (PlainTexts) FileList(entries []string, locked func(string) bool, hitLimit bool) string {
	slices.Sort(entries)
	lines := make([]string, len(entries))
	for i, e := range entries {
		if locked(e) {
			e += " (ignored)"
		}
		lines[i] = e
	}
	if hitLimit {
		lines = append(lines, "(truncated)")
	}
	return strings.Join(lines, "\n")
}

// ReadKey is the path as it is.
func (PlainTexts) ReadKey(rel string) string { return rel }

// RepeatedRead notes nothing.
func (PlainTexts) RepeatedRead(string, int) string { return "" }

// Notebook is the notebook's JSON as it is.
func (PlainTexts) Notebook(data []byte) string { return string(data) }

// CommandOutput is the output's head and tail as the command wrote them.
func (PlainTexts) CommandOutput(e process.Ends, _ int64, where string) (string, bool) {
	if e.Whole {
		return string(e.Head), false
	}
	return string(e.Head) + "\n...\n" + string(e.Tail), true
}

// CommandResult is the exit status, then the output.
func (PlainTexts) CommandResult(res process.Result, output, spilledTo string) string {
	text := fmt.Sprintf("Exit code %d.", res.ExitCode)
	if res.Signal != "" {
		text = "Killed by signal " + res.Signal + "."
	}
	if output != "" {
		text += "\n" + output
	}
	if spilledTo != "" {
		text += "\nFull output: " + spilledTo
	}
	return text
}

// CommandTimedOut says the command timed out, then its output.
func (PlainTexts) CommandTimedOut(timeout time.Duration, output string) string {
	return fmt.Sprintf("Timed out after %s.\n%s", timeout, output)
}

// DefinitionsPathError keeps toolgate's words.
func (PlainTexts) DefinitionsPathError(string) string { return "" }

// MCPResult is the texts, then the media.
func (PlainTexts) MCPResult(r MCPAnswer) []api.Content { return plainAnswer(r) }

// MCPResource is the texts, then the media.
func (PlainTexts) MCPResource(r MCPAnswer) []api.Content { return plainAnswer(r) }

func plainAnswer(r MCPAnswer) []api.Content {
	out := make([]api.Content, 0, len(r.Texts)+len(r.Media))
	for _, t := range r.Texts {
		out = append(out, api.TextContent(t))
	}
	return append(out, r.Media...)
}

// MCPBadArguments names the server and tool.
func (PlainTexts) MCPBadArguments(server, tool string) string {
	return "The arguments for " + server + "/" + tool + " are not a JSON object."
}

// MCPFailed is the message.
func (PlainTexts) MCPFailed(msg string) string { return msg }

// MissingParam names the parameter.
func (PlainTexts) MissingParam(_, param, _ string, _ int) string {
	return fmt.Sprintf("Missing value for required parameter '%s'.", param)
}

// IgnoredPath names the path and the file.
func (PlainTexts) IgnoredPath(path string) string {
	return "Access to " + path + " is blocked by an ignore file."
}

// CallDescription adds nothing.
func (PlainTexts) CallDescription(string, json.RawMessage) string { return "" }

// PolicyRefusal keeps toolgate's explanation.
func (PlainTexts) PolicyRefusal(_, _ string, content []api.Content) []api.Content { return content }

// Rejected keeps toolgate's answer.
func (PlainTexts) Rejected(string, bool, string) []api.Content { return nil }

// ApprovalFeedback quotes the comment.
func (PlainTexts) ApprovalFeedback(feedback string) string {
	return "The user approved this operation and provided the following feedback:\n<feedback>\n" + feedback + "\n</feedback>"
}
