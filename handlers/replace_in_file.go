package handlers

import (
	"context"
	"errors"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/editdiff"
)

// ReplaceInFileInput is replace_in_file's input.
type ReplaceInFileInput struct {
	Path string `json:"path" validate:"required" jsonschema:"path of the file to edit, relative to the workspace"`
	Diff string `json:"diff" validate:"required" jsonschema:"one or more SEARCH/REPLACE blocks: '------- SEARCH', exact lines of the file, '=======', the new lines, '+++++++ REPLACE'"`
}

func newReplaceInFile(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[ReplaceInFileInput]{
		Name: name,
		Description: "Edit a file in the workspace with SEARCH/REPLACE blocks:\n" +
			"------- SEARCH\n[exact lines from the file]\n=======\n[new lines]\n+++++++ REPLACE\n" +
			"SEARCH lines must match whole lines of the file; list blocks in file order. All blocks apply or none do: " +
			"a block that does not match leaves the file untouched and the error shows the closest text. " +
			"Line endings and a byte order mark are kept. The result shows a diff of what changed. " +
			"If the file changed on disk since you last read or wrote it, nothing is written: read it again first.",
		Run: func(ctx context.Context, call *tool.Call, in *ReplaceInFileInput) (tool.Result, error) {
			return replaceInFile(call, in, env.OmitFinalFileContent)
		},
		Preview:   previewReplace,
		Interrupt: tool.InterruptBlock,
		Writes:    true,
		Paths:     func(in *ReplaceInFileInput) []string { return []string{in.Path} },
	})
}

func replaceInFile(call *tool.Call, in *ReplaceInFileInput, omitBody bool) (tool.Result, error) {
	var target *editTarget
	var missed *editdiff.ApplyError
	ed, err := editFile(call, in.Path, func(t *editTarget) ([]byte, error) {
		target = t
		res, err := applyDiff(t, in.Diff, &missed)
		return []byte(res.Content), err
	})
	if err != nil {
		return diffFailure(call.Texts, shownPath(in.Path, ""), target, missed, err)
	}
	// Cline shows the file with its own line ends (a CRLF file in CRLF).
	return editResult(call.Texts, shownPath(in.Path, ed.target.rel), ed.content, string(ed.content), omitBody, ed.note), nil
}

// diffFailure answers a diff that could not be applied as cline@2.18.0
// does (WriteToFileToolHandler: the error, then formatResponse.diffError
// with the file as it still is), the file named as the model named it
// when that was an absolute path (shown); a file that is not there is
// shown empty, as Cline edits it. Other errors pass unchanged.
func diffFailure(texts tool.Texts, shown string, t *editTarget, missed *editdiff.ApplyError, err error) (tool.Result, error) {
	var te *tool.ToolError
	if t == nil || !errors.As(err, &te) || te.Code != api.ToolCodeDiffFailed && (te.Code != api.ToolCodeNotFound || t.exists) {
		return tool.Result{}, err
	}
	var search string
	if missed != nil {
		search = missed.Search
	}
	if shown == "" {
		shown = t.rel
	}
	return tool.Result{Content: []api.Content{
		api.TextContent(texts.EditFailed(te.Message, search, shown, string(t.old))),
	}}, &tool.ToolError{Code: te.Code}
}

// applyDiff applies a SEARCH/REPLACE diff to the target's text. A file that
// does not exist is edited as empty, so an empty SEARCH creates it and any
// other SEARCH is not found in it.
func applyDiff(t *editTarget, diff string, missed **editdiff.ApplyError) (editdiff.Result, error) {
	if !isText(t.old) {
		return editdiff.Result{}, tool.Errorf(api.ToolCodeBinaryFile, "Cannot edit %s: it is a binary file, not text.", t.rel)
	}
	res, err := editdiff.Apply(string(t.old), diff)
	if err != nil {
		if missed != nil {
			errors.As(err, missed)
		}
		// A file that is not there fails as an empty one does in Cline
		// (its SEARCH block matches nothing), coded not_found.
		code := api.ToolCodeDiffFailed
		if !t.exists {
			code = api.ToolCodeNotFound
		}
		return editdiff.Result{}, tool.Errorf(code, "%s", err.Error())
	}
	return res, nil
}

// previewReplace shows what the diff would do. While the block streams in
// (call.Partial) a last block still inside its SEARCH section is left out:
// the diff so far is the complete blocks plus the one whose REPLACE text is
// arriving.
func previewReplace(ctx context.Context, call *tool.Call, in *ReplaceInFileInput) (string, error) {
	t, err := loadTarget(call.Workspace, in.Path)
	if err != nil {
		return "", err
	}
	diff := in.Diff
	if call.Partial {
		diff = completeSoFar(diff)
		if strings.TrimSpace(diff) == "" {
			return "", nil
		}
	}
	res, err := applyDiff(t, diff, nil)
	if err != nil {
		return "", err
	}
	return diffText(t.rel, t.old, []byte(res.Content)), nil
}

// completeSoFar cuts a streaming diff before its last SEARCH marker when no
// ======= separator follows it yet, and drops a last line that may be cut
// mid-way.
func completeSoFar(diff string) string {
	if i := strings.LastIndexByte(diff, '\n'); i >= 0 {
		diff = diff[:i+1]
	} else {
		return ""
	}
	lines := strings.SplitAfter(diff, "\n")
	lastSearch, sepAfter := -1, false
	for i, l := range lines {
		switch markerOf(l) {
		case "search":
			lastSearch, sepAfter = i, false
		case "separator":
			sepAfter = true
		}
	}
	if lastSearch >= 0 && !sepAfter {
		return strings.Join(lines[:lastSearch], "")
	}
	return diff
}

// markerOf recognises the marker lines that matter for cutting a stream,
// loosely: editdiff decides what the diff means.
func markerOf(line string) string {
	l := strings.TrimRight(line, " \t\r\n")
	switch {
	case strings.HasSuffix(l, " SEARCH") || strings.HasSuffix(l, " SEARCH>"):
		head := strings.TrimSuffix(strings.TrimSuffix(l, ">"), " SEARCH")
		if len(head) >= 3 && (strings.Trim(head, "-") == "" || strings.Trim(head, "<") == "") {
			return "search"
		}
	case len(l) >= 3 && strings.Trim(l, "=") == "":
		return "separator"
	}
	return ""
}
