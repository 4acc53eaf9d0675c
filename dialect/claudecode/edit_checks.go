package claudecode

import (
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// noChange refuses an edit whose replacement equals its original, before
// anything is read, as Claude Code's Edit validates it.
func noChange(edits []handlers.TextEdit) error {
	for _, e := range edits {
		if e.OldString == e.NewString {
			return tool.Errorf(api.ToolCodeNoChange, "<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>")
		}
	}
	return nil
}

// notebookRefused refuses Edit of a notebook that exists, as Claude
// Code's Edit sends it to NotebookEdit (its input check, after the one for
// a missing file: a missing notebook is answered as any missing file).
// Its name must end in .ipynb, as Claude Code tests it.
func notebookRefused(env tool.MapEnv, p string) error {
	if !strings.HasSuffix(p, ".ipynb") {
		return nil
	}
	rel, err := env.Workspace.Rel(p)
	if err != nil {
		return nil
	}
	if st, err := env.Workspace.Root.Stat(rel); err != nil || st.IsDir() {
		return nil
	}
	return tool.Errorf(api.ToolCodeInvalid, "<tool_use_error>File is a Jupyter Notebook. Use the NotebookEdit to edit this file.</tool_use_error>")
}

// lineEnd splits text after each line end (CRLF, LF or CR).
var lineEnd = regexp.MustCompile(`\r\n|\n|\r`)

// trimLineEnds takes the trailing white space off each line of an edit's
// new text, as Claude Code's Edit does, except in a Markdown file, where
// two spaces at a line's end are a line break.
func trimLineEnds(path, text string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".mdx":
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range lineEnd.FindAllStringIndex(text, -1) {
		b.WriteString(strings.TrimRightFunc(text[last:m[0]], unicode.IsSpace))
		b.WriteString(text[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(strings.TrimRightFunc(text[last:], unicode.IsSpace))
	return b.String()
}
