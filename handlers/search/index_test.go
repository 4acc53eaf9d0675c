package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// settledIndex is an index that trusts stamps at once: files a test has
// just written would otherwise stay "racy" (too recent to trust) for the
// whole test.
func settledIndex(max int64) *Index {
	ix := NewIndex(IndexOptions{MaxMemory: max})
	ix.racy = 0
	return ix
}

// indexed runs a search through ix and returns "path:line" pairs.
func indexed(t *testing.T, root *os.Root, ix *Index, opts Options) []string {
	t.Helper()
	opts.Index = ix
	return ourMatches(t, root, opts)
}

func TestIndexMatchesColdSearch(t *testing.T) {
	dir := generatedTree(t)
	root := openRoot(t, dir)
	ix := settledIndex(0)
	cases := []Options{{Path: "sub"}, {Path: "nested"}, {}, {FilePattern: "*.txt"}}
	for _, p := range oraclePatterns {
		for _, base := range cases {
			opts := base
			opts.Regex = p
			t.Run(p+"/"+opts.Path+opts.FilePattern, func(t *testing.T) {
				want := ourMatches(t, root, opts)
				for round := range 3 { // listing, summarising, served by summaries
					diffSets(t, "round "+string(rune('0'+round)), indexed(t, root, ix, opts), want)
				}
			})
		}
	}
	if ix.used.Load() == 0 {
		t.Errorf("index holds no summaries after repeated searches")
	}
}

func TestIndexSkipsFilesThatCannotMatch(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "alpha beta\n", "b.txt": "gamma delta\n", "c/d.txt": "alpha gamma\n"})
	root := openRoot(t, dir)
	ix := settledIndex(0)
	for range 2 {
		indexed(t, root, ix, Options{Regex: "alpha"})
	}
	before := ix.reads.Load()
	got := indexed(t, root, ix, Options{Regex: "gamma delta"})
	if reads := ix.reads.Load() - before; reads != 1 {
		t.Errorf("search read %d files, want 1 (the only one whose summary allows the literal)", reads)
	}
	if want := []string{"b.txt:1"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("matches = %v, want %v", got, want)
	}
}

func TestIndexSeesChanges(t *testing.T) {
	dir := generatedTree(t)
	root := openRoot(t, dir)
	ix := settledIndex(0)
	warm := func() {
		for range 2 {
			indexed(t, root, ix, Options{Regex: "hello|world|zebra"})
		}
	}
	changes := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"file rewritten with the same size", func(t *testing.T) {
			writeTree(t, dir, map[string]string{"a.txt": strings.Replace(readFile(t, dir, "a.txt"), "hello", "zebra", 1)})
		}},
		{"file added", func(t *testing.T) { writeTree(t, dir, map[string]string{"sub/deeper/new.txt": "zebra new\n"}) }},
		{"file removed", func(t *testing.T) { remove(t, dir, "keep.log") }},
		{"directory added", func(t *testing.T) { writeTree(t, dir, map[string]string{"fresh/dir/z.txt": "zebra\n"}) }},
		{"gitignore edited in place", func(t *testing.T) {
			writeTree(t, dir, map[string]string{".gitignore": "*.log\n!keep.log\ninner.txt\n"})
		}},
		{"nested ignore file added", func(t *testing.T) { writeTree(t, dir, map[string]string{"sub/deeper/.ignore": "s.txt\n"}) }},
		{"ignore file above the search root changed", func(t *testing.T) {
			writeTree(t, dir, map[string]string{".ignore": "ign_by_ignore.txt\npublic.txt\n"})
		}},
		{"file became binary", func(t *testing.T) { writeTree(t, dir, map[string]string{"unicode.txt": "héllo\x00"}) }},
	}
	for _, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			for _, opts := range []Options{{Regex: "hello|zebra"}, {Regex: "hello|zebra", Path: "sub"}} {
				warm()
				indexed(t, root, ix, opts)
				ch.change(t)
				diffSets(t, ch.name+" in "+opts.Path, indexed(t, root, ix, opts), ourMatches(t, root, opts))
			}
		})
	}
}

func TestIndexMemoryBound(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 50 {
		files[filepath.Join("d", strings.Repeat("x", i+1)+".txt")] = strings.Repeat("some text line\n", 400)
	}
	writeTree(t, dir, files)
	root := openRoot(t, dir)
	const budget = 8 << 10
	ix := settledIndex(budget)
	for range 3 {
		indexed(t, root, ix, Options{Regex: "text"})
	}
	if used := ix.used.Load(); used <= 0 || used > budget {
		t.Errorf("summaries hold %d bytes, want between 1 and the budget %d", used, budget)
	}
}

func TestIndexConcurrentSearches(t *testing.T) {
	dir := generatedTree(t)
	root := openRoot(t, dir)
	ix := settledIndex(0)
	want := ourMatches(t, root, Options{Regex: "hello"})
	done := make(chan []string)
	for range 4 {
		go func() {
			res, err := Search(context.Background(), root, Options{Regex: "hello", Index: ix, MaxResults: 1 << 30})
			if err != nil {
				done <- nil
				return
			}
			done <- matchPairs(res)
		}()
	}
	for range 4 {
		diffSets(t, "concurrent", receive(t, done), want)
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func remove(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}
