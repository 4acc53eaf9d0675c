package claudecode

import (
	"strings"

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
