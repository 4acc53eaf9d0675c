package handlers

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// EditTextInput is edit_text's input: exact-string replacements or a line
// insertion. Claude Code's Edit and MultiEdit and the text editor's
// str_replace and insert map onto it.
type EditTextInput struct {
	Path  string     `json:"path" validate:"required" jsonschema:"path of the file, relative to the workspace or absolute inside it"`
	Edits []TextEdit `json:"edits,omitempty" validate:"dive" jsonschema:"replacements, applied in order to the result of the previous one; all apply or none"`
	// Insert adds lines instead of replacing text.
	Insert *TextInsert `json:"insert,omitempty" jsonschema:"text to insert after a line"`
	// RequireRead refuses an existing file the session has not read.
	RequireRead bool `json:"require_read,omitempty" jsonschema:"refuse to edit an existing file this session has not read"`
	// FoldQuotes looks for an old_string that is not in the file as
	// written with curly quotes read as straight ones, and replaces the
	// file's own text (Claude Code's Edit: findActualString).
	FoldQuotes bool `json:"fold_quotes,omitempty" jsonschema:"find old_string with curly quotes read as straight ones when it is not in the file as written"`
}

// TextEdit replaces old_string with new_string.
type TextEdit struct {
	OldString  string `json:"old_string" jsonschema:"exact text to replace; it must occur once unless replace_all is set"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place; it must differ from old_string"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence of old_string"`
}

// TextInsert inserts text after a line (0: at the top).
type TextInsert struct {
	Line int    `json:"line" validate:"min=0" jsonschema:"line after which to insert, 0 for the top of the file"`
	Text string `json:"text" jsonschema:"text to insert"`
}

// Codes of edit_text's refusals, which dialects word their own way; api
// declares them with the other tool error codes.
const (
	CodeNoMatch         = api.ToolCodeNoMatch
	CodeMultipleMatches = api.ToolCodeMultipleMatches
	CodeNoChange        = api.ToolCodeNoChange
	CodeFileExists      = api.ToolCodeFileExists
	CodeBadInsertLine   = api.ToolCodeInvalidInsertLine
)

// snippetLines is how many lines around an edit its result shows.
const snippetLines = 4

func newEditText(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[EditTextInput]{
		Name: name,
		Description: "Edit a file by exact string replacement (each old_string unique unless replace_all) or insert text after a line. " +
			"All edits apply or none do. An empty old_string creates a file that does not exist yet.",
		Run:       editText,
		Interrupt: tool.InterruptBlock,
		Writes:    true,
		Paths:     func(in *EditTextInput) []string { return []string{in.Path} },
		Preview: func(ctx context.Context, call *tool.Call, in *EditTextInput) (string, error) {
			t, err := loadTarget(call.Workspace, in.Path)
			if err != nil {
				return "", err
			}
			content, _, err := applyTextEdits(t, in)
			if err != nil {
				return "", err
			}
			return diffText(t.rel, t.old, []byte(content)), nil
		},
	})
}

func editText(ctx context.Context, call *tool.Call, in *EditTextInput) (tool.Result, error) {
	at := 0
	fe, err := editFile(call, in.Path, func(t *editTarget) ([]byte, error) {
		if _, seen := call.Files.Seen(t.rel); in.RequireRead && t.exists && !seen {
			return nil, tool.Errorf(api.ToolCodeReadRequired,
				"%s has not been read in this session; read it before editing it. No changes were made.", t.rel)
		}
		content, first, err := applyTextEdits(t, in)
		at = first
		return []byte(content), err
	})
	if err != nil {
		return tool.Result{}, err
	}
	verb := "Edited"
	if !fe.target.exists {
		verb = "Created"
	}
	return tool.Result{Content: []api.Content{
		api.TextContent(fmt.Sprintf("%s %s (%s).%s", verb, fe.target.rel, describeSize(fe.content), fe.note)),
		api.TextContent(numberedSnippet(string(fe.content), at)),
	}}, nil
}

// applyTextEdits computes the file's new content and the first line the
// edits touched, without writing.
func applyTextEdits(t *editTarget, in *EditTextInput) (string, int, error) {
	if !isText(t.old) {
		return "", 0, tool.Errorf(api.ToolCodeBinaryFile, "Cannot edit %s: it is a binary file, not text.", t.rel)
	}
	content := string(t.old)
	crlf := strings.Count(content, "\r\n") > strings.Count(content, "\n")/2
	if in.Insert != nil {
		return insertText(t, content, *in.Insert, crlf)
	}
	if len(in.Edits) == 0 {
		return "", 0, tool.Errorf(api.ToolCodeInvalid, "Invalid input for tool edit_text: give at least one edit or an insert.")
	}
	first := -1
	for i, e := range in.Edits {
		old, repl := e.OldString, e.NewString
		if crlf && !strings.Contains(old, "\r") {
			old, repl = toCRLF(old), toCRLF(repl)
		}
		if in.FoldQuotes && old != "" && !strings.Contains(content, old) {
			if actual, ok := findFolded(content, old); ok {
				old = actual
			}
		}
		switch n := strings.Count(content, old); {
		case old == "" && i == 0 && !t.exists:
			content = repl
			first = 1
			continue
		case old == "" && t.exists && content != "":
			return "", 0, tool.Errorf(CodeFileExists, "Cannot create %s: the file already exists. No changes were made.", t.rel)
		case old == "" && t.exists:
			content = repl
			first = 1
			continue
		case !t.exists:
			return "", 0, tool.Errorf(api.ToolCodeNotFound, "File not found: %s.", t.rel)
		case e.OldString == e.NewString:
			return "", 0, tool.Errorf(CodeNoChange, "Edit %d: old_string and new_string are exactly the same. No changes were made.", i+1)
		case n == 0:
			return "", 0, tool.Errorf(CodeNoMatch, "Edit %d: old_string was not found in %s. No changes were made.\nString: %s", i+1, t.rel, e.OldString)
		case n > 1 && !e.ReplaceAll:
			return "", 0, tool.Errorf(CodeMultipleMatches, "Edit %d: old_string occurs %d times in %s (lines %s); "+
				"give more context to make it unique, or set replace_all. No changes were made.\nString: %s",
				i+1, n, t.rel, matchLines(content, old), e.OldString)
		default:
			if line := strings.Count(content[:strings.Index(content, old)], "\n") + 1; first < 0 || line < first {
				first = line
			}
			count := 1
			if e.ReplaceAll {
				count = -1
			}
			content = strings.Replace(content, old, repl, count)
		}
	}
	return content, first, nil
}

// insertText inserts text after line n of content.
func insertText(t *editTarget, content string, ins TextInsert, crlf bool) (string, int, error) {
	if !t.exists {
		return "", 0, tool.Errorf(api.ToolCodeNotFound, "File not found: %s.", t.rel)
	}
	lines := strings.SplitAfter(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if ins.Line > len(lines) {
		return "", 0, tool.Errorf(CodeBadInsertLine, "Invalid insert line %d: the file has %d lines, so it must be within [0, %d].",
			ins.Line, len(lines), len(lines))
	}
	text := ins.Text
	if crlf && !strings.Contains(text, "\r") {
		text = toCRLF(text)
	}
	nl := "\n"
	if crlf {
		nl = "\r\n"
	}
	if !strings.HasSuffix(text, "\n") {
		text += nl
	}
	if ins.Line > 0 && !strings.HasSuffix(lines[ins.Line-1], "\n") {
		lines[ins.Line-1] += nl
	}
	out := strings.Join(lines[:ins.Line], "") + text + strings.Join(lines[ins.Line:], "")
	return out, ins.Line + 1, nil
}

func toCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// matchLines lists the lines where old occurs, for a refusal.
func matchLines(content, old string) string {
	var lines []string
	for i, off := 0, 0; i < 10; i++ {
		j := strings.Index(content[off:], old)
		if j < 0 {
			break
		}
		lines = append(lines, fmt.Sprint(strings.Count(content[:off+j], "\n")+1))
		off += j + len(old)
	}
	return strings.Join(lines, ", ")
}

// numberedSnippet shows the lines around line at in `cat -n` form.
func numberedSnippet(content string, at int) string {
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	from, to := max(at-snippetLines, 1), min(at+snippetLines, len(lines))
	var b strings.Builder
	for n := from; n <= to; n++ {
		fmt.Fprintf(&b, "%6d\t%s\n", n, CutChars(lines[n-1], readLineMaxChars))
	}
	return b.String()
}
