package tool

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestWalkEntriesAsWalkDir: WalkEntries visits what fs.WalkDir over
// Root.FS() visits below a directory, with the same types, follows no
// symlink (one to a directory outside is visited as a link, not
// entered), and its Info is the entry's lstat; it declines a start
// that goes through a symlink or is no directory.
func TestWalkEntriesAsWalkDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	for _, d := range []string{"a/b/c", "d", filepath.Join("..", "out", "deep")} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"top.txt", "a/one.go", "a/b/two.go", "a/b/c/three.go", "../out/deep/secret.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(dir, "a/one.go"), filepath.Join(dir, "d/linked.go")); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": filepath.Join(base, "out"), "a/up": "..", "d/file_link": "../top.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "d/pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })

	for _, start := range []string{".", "a", "a/b"} {
		want := map[string]fs.FileMode{}
		_ = fs.WalkDir(ws.Root.FS(), start, func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != start {
				want[p] = d.Type()
			}
			return nil
		})
		got := map[string]fs.FileMode{}
		links := map[string]uint64{}
		if !ws.WalkEntries(start, func(p string, d fs.DirEntry) bool {
			got[p] = d.Type()
			if d.Type().IsRegular() {
				info, err := d.Info()
				if err != nil {
					t.Errorf("Info of %s: %v", p, err)
					return true
				}
				links[p] = uint64(info.Sys().(*syscall.Stat_t).Nlink)
			}
			return true
		}) {
			t.Fatalf("WalkEntries(%q) declined", start)
		}
		if !maps.Equal(got, want) {
			t.Errorf("WalkEntries(%q) visited %v, fs.WalkDir %v", start, sortedKeys(got), sortedKeys(want))
		}
		if start == "." && (links["a/one.go"] != 2 || links["d/linked.go"] != 2 || links["top.txt"] != 1) {
			t.Errorf("link counts from Info: %v", links)
		}
		if _, ok := got["out/deep/secret.txt"]; ok {
			t.Errorf("the walk followed a symlink out of the workspace")
		}
	}
	for _, start := range []string{"out", "a/up", "top.txt", "missing"} {
		if ws.WalkEntries(start, func(string, fs.DirEntry) bool { return true }) {
			t.Errorf("WalkEntries(%q) walked; it must leave that start to Root", start)
		}
	}
	n := 0
	ws.WalkEntries(".", func(string, fs.DirEntry) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("the walk went on after visit said stop: %d visits", n)
	}
}

func sortedKeys(m map[string]fs.FileMode) []string {
	return slices.Sorted(maps.Keys(m))
}
