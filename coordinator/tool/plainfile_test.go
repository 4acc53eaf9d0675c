package tool

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlainPath: only a path that exists and goes through no symlink is
// plain; a workspace made without OpenWorkspace says nothing is.
func TestPlainPath(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub/a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link": "sub", "sub/b.txt": "a.txt", "out": base} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	for rel, want := range map[string]bool{
		".": true, "sub": true, "sub/a.txt": true, "sub/../sub/a.txt": true,
		"link": false, "link/a.txt": false, "sub/b.txt": false, "out": false,
		"missing": false, "sub/a.txt/x": false, "../ws/sub/a.txt": false,
	} {
		if got := ws.PlainPath(rel); got != want {
			t.Errorf("PlainPath(%q) = %v, want %v", rel, got, want)
		}
	}
	if (&Workspace{Dir: ws.Dir, Root: ws.Root}).PlainPath("sub/a.txt") {
		t.Errorf("a workspace without its directory's handle says a path is plain")
	}
}
