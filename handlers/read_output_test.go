package handlers

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/outfiles"
	"github.com/toolgate/toolgate/internal/process"
)

// TestSavedOutputReadsBackInItsSessionOnly: a command's output over
// save_over is saved whole, answered with its first bytes (no character
// cut) and the file, and read_output opens the file for the session that
// saved it and refuses it to another.
func TestSavedOutputReadsBackInItsSessionOnly(t *testing.T) {
	ws := workspaceWith(t, nil)
	area := outfiles.New(t.TempDir(), outfiles.Limits{})
	out := process.NewOutput(process.OutputLimits{})
	whole := strings.Repeat("é", 20000) + "\nlast\n" // 40006 bytes, two lines
	_, _ = out.Write([]byte(whole))
	_ = out.Close()
	s1 := &tool.Call{SessionID: "s1", Workspace: ws}

	if _, ok := saveOutput(s1, area, 30001, "failed", out); ok {
		t.Error("a failed command's output was saved")
	}
	if _, ok := saveOutput(s1, area, len(whole), "succeeded", out); ok {
		t.Error("an output of save_over bytes was saved")
	}
	res, ok := saveOutput(s1, area, 30001, "succeeded", out)
	if !ok || len(res.Content) != 2 {
		t.Fatalf("not saved: %+v", res)
	}
	if head := res.Content[0].Text; len(head) != 30000 || !utf8.ValidString(head) {
		t.Errorf("the answer's head: %d bytes, valid UTF-8 %v; want 30000, valid", len(head), utf8.ValidString(head))
	}
	size, path, ok := ParseSavedOutput(res.LastText())
	if !ok || size != int64(len(whole)) || !strings.HasPrefix(path, area.Dir("s1")+"/tool-results/") {
		t.Fatalf("note %q: size %d, path %s", res.LastText(), size, path)
	}

	got, err := readOutput(s1, area, &ReadOutputInput{Path: path, Offset: 2})
	if err != nil || got.LastText() != "2\tlast\n3\t" {
		t.Errorf("the session's own read: %q, %v", got.LastText(), err)
	}
	s2 := &tool.Call{SessionID: "s2", Workspace: ws}
	got, err = readOutput(s2, area, &ReadOutputInput{Path: path, Offset: 2})
	var te *tool.ToolError
	if !errors.As(err, &te) || te.Code != api.ToolCodeOutside {
		t.Errorf("another session's read: %q, %v; want an %s refusal", got.LastText(), err, api.ToolCodeOutside)
	}
	_, err = readOutput(s1, area, &ReadOutputInput{Path: "/etc/passwd"})
	if !errors.As(err, &te) || te.Code != api.ToolCodeOutside {
		t.Errorf("a path outside: %v; want an %s refusal", err, api.ToolCodeOutside)
	}
}
