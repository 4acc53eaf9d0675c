package policy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// A command tool names its paths twice, through its Paths and through the
// command analysis; the subject, and so the approval preview, lists each
// once.
func TestSubjectListsEachPathOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	p := New(Options{Workspace: ws})
	type cmdIn struct {
		Command string `json:"command"`
	}
	tool := tool.NewTool(tool.Spec[cmdIn]{
		Name:    "execute_command",
		Run:     func(context.Context, *tool.Call, *cmdIn) (tool.Result, error) { return tool.Result{}, nil },
		Paths:   func(in *cmdIn) []string { return []string{"a.txt"} },
		Command: func(in *cmdIn) tool.CommandLine { return tool.CommandLine{Command: in.Command} },
	})
	raw, _ := json.Marshal(map[string]any{"command": "cat a.txt a.txt; cd \"$D\" && cat b"})
	var in cmdIn
	_ = json.Unmarshal(raw, &in)
	sub, _ := p.Subject(tool, &in)
	var rels []string
	for _, r := range sub.Paths {
		rels = append(rels, r.Rel)
	}
	if strings.Count(strings.Join(rels, " "), "a.txt") != 1 {
		t.Errorf("paths %v, want a.txt once", rels)
	}
	if len(sub.Outside) != 1 {
		t.Fatalf("outside %v, want the one word after the unknown cd", sub.Outside)
	}
	got := OutsideReason(sub.Outside[0])
	if !strings.Contains(got, `"b" after a cd or exec`) {
		t.Errorf("reason %q, want it to name b after an unknown cd", got)
	}
}
