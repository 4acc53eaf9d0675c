package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// TestRealPathPlainAsWalked: RealPath answers the same whether a path
// with no symlink is told plain by one openat2 (Workspace.PlainPath) or
// every path is resolved by EvalSymlinks, as a workspace without its
// directory's handle resolves them: links inside and outside, missing
// paths under a link, .. and plain paths.
func TestRealPathPlainAsWalked(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(dir, "src/deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src/deep/a.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"env_link": "src/deep/a.go", "dir_link": "src", "out": base, "abs_in": filepath.Join(dir, "src")} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	plain := New(Options{Workspace: ws})
	walked := New(Options{Workspace: &tool.Workspace{Dir: ws.Dir, Root: ws.Root}})
	for _, rel := range []string{
		".", "src", "src/deep/a.go", "src/../src/deep/a.go", "env_link", "dir_link/deep/a.go", "dir_link/new.go",
		"abs_in/deep", "out", "out/ws/src", "missing/new.go", "src/deep/a.go/x", "../ws/src",
	} {
		gotReal, gotIn := plain.RealPath(rel)
		wantReal, wantIn := walked.RealPath(rel)
		if gotReal != wantReal || gotIn != wantIn {
			t.Errorf("RealPath(%q) = %q, %v; resolved by EvalSymlinks %q, %v", rel, gotReal, gotIn, wantReal, wantIn)
		}
	}
	if !ws.PlainPath("src/deep/a.go") {
		t.Errorf("a path with no symlink is not told plain: the test compares EvalSymlinks with itself")
	}
}
