package handlers

import (
	"context"
	"fmt"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// newWriteFileReadFirst serves write_file: write_to_file's whole-file
// write for Claude Code's Write, which refuses to overwrite a file the
// session has not read. Its result is worded plainly ("Created"/"Updated",
// then the diff) for dialects to reword.
func newWriteFileReadFirst(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[WriteToFileInput]{
		Name:        name,
		Description: "Write a whole file, creating parent directories; an existing file must have been read in this session first.",
		Run:         writeFileReadFirst,
		Preview:     previewAsGiven,
		Interrupt:   tool.InterruptBlock,
		Writes:      true,
		Paths:       func(in *WriteToFileInput) []string { return []string{in.Path} },
	})
}

func writeFileReadFirst(ctx context.Context, call *tool.Call, in *WriteToFileInput) (tool.Result, error) {
	ed, err := editFile(call, in.Path, func(t *editTarget) ([]byte, error) {
		if _, seen := call.Files.Seen(t.rel); t.exists && !seen {
			return nil, tool.Errorf(api.ToolCodeReadRequired,
				"%s has not been read in this session; read it before overwriting it. No changes were made.", t.rel)
		}
		return asGiven(in), nil
	})
	if err != nil {
		return tool.Result{}, err
	}
	t := ed.target
	verb := "Updated"
	if !t.exists {
		verb = "Created"
	}
	text := fmt.Sprintf("%s %s (%s).", verb, t.rel, describeSize(ed.content))
	if diff := diffText(t.rel, t.old, ed.content); diff != "" {
		text += "\n\n" + diff
	}
	return tool.TextResult(text + ed.note), nil
}

// asGiven is what write_file puts in the file: the content as the call
// gives it. Claude Code's Write writes the model's text as it is, so LF
// text over a CRLF file stays LF (measured: internal/conformance/claudecode,
// "LF over a CRLF file"), where write_to_file keeps the file's style.
func asGiven(in *WriteToFileInput) []byte { return []byte(*in.Content) }

// previewAsGiven shows the approval the diff write_file would make.
func previewAsGiven(ctx context.Context, call *tool.Call, in *WriteToFileInput) (string, error) {
	t, err := loadTarget(call.Workspace, in.Path)
	if err != nil {
		return "", err
	}
	return diffText(t.rel, t.old, asGiven(in)), nil
}
