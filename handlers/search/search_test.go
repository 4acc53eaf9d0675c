package search

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSearchStreamsAndExcludes(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.txt": "needle\n", "b/c.txt": "needle\n", "private/p.txt": "needle\n", ".env": "needle\n", "d.key": "needle\n",
	})
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "needle\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	var streamed []string
	res := mustSearch(t, root, Options{
		Regex:   "needle",
		OnFile:  func(f FileMatches) { streamed = append(streamed, f.Path) },
		Exclude: func(rel string, _ bool) bool { return rel == "private" || filepath.Ext(rel) == ".key" },
	})
	slices.Sort(streamed)
	if want := []string{"a.txt", "b/c.txt"}; !slices.Equal(streamed, want) {
		t.Errorf("streamed %q, want %q", streamed, want)
	}
	if res.Count != 2 || res.ExcludedFiles != 1 || res.ExcludedDirs != 1 {
		t.Errorf("Count, ExcludedFiles, ExcludedDirs = %d, %d, %d; want 2, 1, 1", res.Count, res.ExcludedFiles, res.ExcludedDirs)
	}
	for _, p := range []string{"../x", "/etc", "a/../../x"} {
		t.Run("refuses "+p, func(t *testing.T) {
			if _, err := Search(context.Background(), root, Options{Regex: "x", Path: p}); err == nil {
				t.Errorf("Search(Path=%q) succeeded, want an error", p)
			}
		})
	}
	t.Run("odd legal names", func(t *testing.T) {
		writeTree(t, dir, map[string]string{"..foo/f.txt": "needle\n"})
		if got := mustSearch(t, root, Options{Regex: "needle", Path: "..foo"}).Count; got != 1 {
			t.Errorf("Count = %d, want 1", got)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Search(ctx, root, Options{Regex: "needle"}); err == nil {
			t.Error("cancelled Search succeeded, want ctx error")
		}
	})
}
