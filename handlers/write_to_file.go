package handlers

import (
	"bytes"
	"context"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// WriteToFileInput is the input of write_to_file and new_rule.
type WriteToFileInput struct {
	Path string `json:"path" validate:"required" jsonschema:"path of the file to create or overwrite, relative to the workspace"`
	// Content must be sent, empty for an empty file: Cline's
	// WriteToFileToolHandler.ts refuses a call without it.
	Content *string `json:"content" validate:"required" jsonschema:"the complete new content of the file"`
}

// rulesDir is where new_rule may write, as Cline keeps its rules.
const rulesDir = ".clinerules"

// newWriteFile serves write_to_file and new_rule with one implementation;
// new_rule only writes under .clinerules/.
func newWriteFile(name string, env tool.Env) *tool.Tool {
	desc := "Write a file in the workspace, creating parent directories. The file is replaced whole and atomically: " +
		"readers see the old or the new content, never a mix. An existing file keeps its permissions, its byte order mark " +
		"and its CRLF line endings. The result shows a diff of what changed. If the file changed on disk since you last " +
		"read or wrote it, nothing is written: read it again first."
	if name == "new_rule" {
		desc = "Create or replace a rule file under .clinerules/ in the workspace."
	}
	rulesOnly := name == "new_rule"
	return tool.NewTool(tool.Spec[WriteToFileInput]{
		Name:        name,
		Description: desc,
		Run: func(ctx context.Context, call *tool.Call, in *WriteToFileInput) (tool.Result, error) {
			return writeToFile(call, in, rulesOnly, env.OmitFinalFileContent)
		},
		Preview:   previewWrite(rulesOnly),
		Interrupt: tool.InterruptBlock,
		Writes:    true,
		Paths:     func(in *WriteToFileInput) []string { return []string{in.Path} },
	})
}

// previewWrite shows the approval the diff a whole-file write would make.
func previewWrite(rulesOnly bool) func(context.Context, *tool.Call, *WriteToFileInput) (string, error) {
	return func(ctx context.Context, call *tool.Call, in *WriteToFileInput) (string, error) {
		t, content, err := planWrite(call, in, rulesOnly)
		if err != nil {
			return "", err
		}
		return diffText(t.rel, t.old, content), nil
	}
}

// planWrite loads the target and works out the bytes to write, without
// writing (for the approval preview).
func planWrite(call *tool.Call, in *WriteToFileInput, rulesOnly bool) (*editTarget, []byte, error) {
	t, err := loadTarget(call.Workspace, in.Path)
	if err != nil {
		return nil, nil, err
	}
	content, err := writeContent(t, in, rulesOnly)
	return t, content, err
}

// writeContent is what write_to_file puts in the target: the input's
// content in the existing file's style.
func writeContent(t *editTarget, in *WriteToFileInput, rulesOnly bool) ([]byte, error) {
	if rulesOnly && !strings.HasPrefix(t.rel, rulesDir+"/") {
		return nil, tool.Errorf(api.ToolCodeOutsideRules, "new_rule only writes under %s/; %s is not there.", rulesDir, t.rel)
	}
	content := []byte(withoutFences(*in.Content))
	if t.exists {
		content = matchStyle(t.old, content)
	}
	return content, nil
}

func writeToFile(call *tool.Call, in *WriteToFileInput, rulesOnly, omitBody bool) (tool.Result, error) {
	ed, err := editFile(call, in.Path, func(t *editTarget) ([]byte, error) { return writeContent(t, in, rulesOnly) })
	if err != nil {
		return tool.Result{}, err
	}
	return editResult(call.Texts, shownPath(in.Path, ed.target.rel), ed.content, *in.Content, omitBody, ed.note), nil
}

// withoutFences takes off a Markdown code fence a model put around a
// file's content, as Cline's WriteToFileToolHandler does: a first line
// starting with three backticks (a language name may follow) and a last
// line ending with them are dropped, and the text left is trimmed.
func withoutFences(s string) string {
	const fence = "```"
	if strings.HasPrefix(s, fence) {
		_, rest, _ := strings.Cut(s, "\n")
		s = strings.TrimSpace(rest)
	}
	if strings.HasSuffix(s, fence) {
		i := strings.LastIndex(s, "\n")
		s = strings.TrimSpace(s[:max(i, 0)])
	}
	return s
}

// matchStyle keeps an existing file's byte order mark and CRLF line
// endings when the new content, as models write it, has neither: an edit
// should change the text, not every line's terminator.
func matchStyle(old, content []byte) []byte {
	const bom = "\uFEFF"
	if bytes.HasPrefix(old, []byte(bom)) && !bytes.HasPrefix(content, []byte(bom)) {
		content = append([]byte(bom), content...)
	}
	crlf := bytes.Count(old, []byte("\r\n"))
	if crlf > 0 && crlf > bytes.Count(old, []byte("\n"))-crlf && !bytes.Contains(content, []byte("\r\n")) {
		content = bytes.ReplaceAll(content, []byte("\n"), []byte("\r\n"))
	}
	return content
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
