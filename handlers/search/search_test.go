package search

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// countingReader serves data in reads of at most max bytes and counts them.
type countingReader struct {
	data  []byte
	max   int
	reads int
}

func (r *countingReader) Read(p []byte) (int, error) {
	r.reads++
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.max)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReadWholeStopsAtStatSize: a file read in full in one read, short of
// the buffer, needs no second read to find its end; a file that grew since
// its stat, or whose reads come short, is still read to its end.
func TestReadWholeStopsAtStatSize(t *testing.T) {
	data := []byte(strings.Repeat("line\n", 1000))
	for _, c := range []struct {
		name      string
		size, max int
		reads     int
	}{
		{"whole", len(data), len(data), 1},
		{"grown", len(data) - 100, len(data), 2},
		{"short reads", len(data), 1000, 5},
	} {
		r := &countingReader{data: data, max: c.max}
		var scratch []byte
		got, err := readWhole(r, int64(c.size), &scratch)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: read %d bytes, %v; want all %d", c.name, len(got), err, len(data))
		}
		if r.reads != c.reads {
			t.Errorf("%s: %d reads, want %d", c.name, r.reads, c.reads)
		}
	}
}
