package coordinator

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// maskWorkspace makes a workspace with an ignored file two directories
// down, its directories' times an hour old (older than masksRacy, so a
// listing is kept).
func maskWorkspace(t *testing.T) (*tool.Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a/b/one.env", "a/keep.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ageDirs(t, dir, "", "a", "a/b")
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, dir
}

// ageDirs sets the directories' modification times an hour back.
func ageDirs(t *testing.T, root string, dirs ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, d := range dirs {
		if err := os.Chtimes(filepath.Join(root, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
}

func envRules() *ignore.Matcher {
	return ignore.NewMatcher(ignore.ParseRules(".clineignore", "", []byte("*.env\n")))
}

func wantMasks(t *testing.T, got []string, dir string, want ...string) {
	t.Helper()
	var full []string
	for _, w := range want {
		full = append(full, filepath.Join(dir, filepath.FromSlash(w)))
	}
	slices.Sort(got)
	if !slices.Equal(got, full) {
		t.Errorf("masks = %v, want %v", got, full)
	}
}

// TestMaskCacheSeesNewIgnoredFiles: an ignored file created after a
// listing was kept, deep in the tree, is masked by the next run; so are
// a renamed one and a directory turned ignored by new rules.
func TestMaskCacheSeesNewIgnoredFiles(t *testing.T) {
	ws, dir := maskWorkspace(t)
	var mc maskCache
	m := envRules()
	got, err := mc.ignored(ws, m)
	if err != nil {
		t.Fatal(err)
	}
	wantMasks(t, got, dir, "a/b/one.env")
	if mc.watch == nil {
		t.Fatal("a listing of directories an hour old was not kept")
	}

	t.Run("created", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(dir, "a", "b", "two.env"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _ := mc.ignored(ws, m)
		wantMasks(t, got, dir, "a/b/one.env", "a/b/two.env")
	})
	t.Run("renamed", func(t *testing.T) {
		ageDirs(t, dir, "", "a", "a/b")
		_, _ = mc.ignored(ws, m) // kept again
		if err := os.Rename(filepath.Join(dir, "a", "keep.txt"), filepath.Join(dir, "a", "kept.env")); err != nil {
			t.Fatal(err)
		}
		got, _ := mc.ignored(ws, m)
		wantMasks(t, got, dir, "a/b/one.env", "a/b/two.env", "a/kept.env")
	})
	t.Run("new rules", func(t *testing.T) {
		ageDirs(t, dir, "", "a", "a/b")
		got, _ := mc.ignored(ws, ignore.NewMatcher(ignore.ParseRules(".clineignore", "", []byte("b/\n"))))
		wantMasks(t, got, dir, "a/b")
	})
}

// TestMaskCacheKeepsListing: while no directory changes, the listing is
// reused rather than walked again (the same slice comes back). A file
// slipped in with its directory's modification time put back is seen
// all the same: the directory's change time moved.
func TestMaskCacheKeepsListing(t *testing.T) {
	ws, dir := maskWorkspace(t)
	var mc maskCache
	m := envRules()
	first, err := mc.ignored(ws, m)
	if err != nil {
		t.Fatal(err)
	}
	again, err := mc.ignored(ws, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) == 0 || &first[0] != &again[0] {
		t.Fatal("the listing was made again with nothing changed")
	}
	b := filepath.Join(dir, "a", "b")
	before, err := os.Stat(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, "sneaked.env"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(b, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	got, err := mc.ignored(ws, m)
	if err != nil {
		t.Fatal(err)
	}
	wantMasks(t, got, dir, "a/b/one.env", "a/b/sneaked.env")
}

// TestMaskCacheRacyDirectory: a listing that read a directory changed
// within masksRacy is not kept.
func TestMaskCacheRacyDirectory(t *testing.T) {
	ws, dir := maskWorkspace(t)
	if err := os.WriteFile(filepath.Join(dir, "a", "fresh.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mc maskCache
	if _, err := mc.ignored(ws, envRules()); err != nil {
		t.Fatal(err)
	}
	if mc.watch != nil {
		t.Error("a listing that read a directory changed just now was kept")
	}
}
