package handlers

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/dialect/cline"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// workspaceWith makes a workspace holding files (slash path -> content).
func workspaceWith(t testing.TB, files map[string]string) *tool.Workspace {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// editCall is a call in a fresh session memory.
func editCall(ws *tool.Workspace, id string) *tool.Call {
	return &tool.Call{ToolUseID: id, Workspace: ws, Files: coordinator.NewFileMemory(coordinator.DefaultConfig()), Texts: cline.Texts{}}
}

// readWS returns a workspace file's content, or "<absent>".
func readWS(t *testing.T, ws *tool.Workspace, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws.Dir, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// toolCode is the code of a handler error, "" for nil.
func toolCode(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var te *tool.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("error %v is not a *coordinator.ToolError", err)
	}
	return te.Code
}

// resultText joins a result's text contents.
func resultText(r tool.Result) string {
	s := ""
	for _, c := range r.Content {
		s += c.Text
	}
	return s
}

// writeFileT changes a workspace file behind the tools' back.
func writeFileT(t *testing.T, ws *tool.Workspace, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws.Dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
