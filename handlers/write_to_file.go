package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/handlers/atomicfile"

	"github.com/toolgate/toolgate/coordinator"
)

// WriteToFileInput is the input of write_to_file and new_rule.
type WriteToFileInput struct {
	Path    string `json:"path" validate:"required" jsonschema:"path of the file to create or overwrite, relative to the workspace"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

// rulesDir is where new_rule may write, as Cline keeps its rules.
const rulesDir = ".clinerules"

// newWriteFile serves write_to_file and new_rule with one implementation;
// new_rule only writes under .clinerules/.
func newWriteFile(name string, env coordinator.ToolEnv) *coordinator.Tool {
	desc := "Write a file in the workspace, creating parent directories. The file is replaced whole and atomically: " +
		"readers see the old or the new content, never a mix. An existing file keeps its permissions."
	if name == "new_rule" {
		desc = "Create or replace a rule file under .clinerules/ in the workspace."
	}
	return coordinator.NewTool(coordinator.Spec[WriteToFileInput]{
		Name:        name,
		Description: desc,
		Run: func(ctx context.Context, call *coordinator.Call, in *WriteToFileInput) (coordinator.Result, error) {
			return writeToFile(call, in, name == "new_rule")
		},
		Interrupt: coordinator.InterruptBlock,
		Writes:    true,
		Paths:     func(in *WriteToFileInput) []string { return []string{in.Path} },
	})
}

func writeToFile(call *coordinator.Call, in *WriteToFileInput, rulesOnly bool) (coordinator.Result, error) {
	rel, err := call.Workspace.Rel(in.Path)
	if err != nil {
		return coordinator.Result{}, err
	}
	if rel == "." {
		return coordinator.Result{}, coordinator.Errorf("is_directory", "path must name a file, not the workspace itself")
	}
	if rulesOnly && !strings.HasPrefix(rel, rulesDir+"/") {
		return coordinator.Result{}, coordinator.Errorf("outside_rules", "new_rule only writes under %s/; %s is not there.", rulesDir, rel)
	}
	existed := true
	if _, err := call.Workspace.Root.Lstat(rel); err != nil {
		existed = false
	}
	if err := writeAtomic(call.Workspace, rel, []byte(in.Content)); err != nil {
		return coordinator.Result{}, err
	}
	verb := "Updated"
	if !existed {
		verb = "Created"
	}
	return coordinator.TextResult(fmt.Sprintf("%s %s (%d bytes, %d lines).", verb, rel, len(in.Content), countLines(in.Content))), nil
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

// writeAtomic replaces rel with data atomically, refusing symlinks that
// lead outside the workspace.
func writeAtomic(ws *coordinator.Workspace, rel string, data []byte) error {
	if err := atomicfile.Write(ws.Root, rel, data, 0o644); err != nil {
		if errors.Is(err, atomicfile.ErrEscapes) {
			return coordinator.Errorf("outside_workspace", "Path %s leads outside the workspace; only paths inside it can be written.", rel)
		}
		return fileError(rel, err)
	}
	return nil
}
