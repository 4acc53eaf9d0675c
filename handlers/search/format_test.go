package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func openRoot(t testing.TB, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func mustSearch(t testing.TB, root *os.Root, opts Options) *Result {
	t.Helper()
	res, err := Search(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("Search(%q): %v", opts.Regex, err)
	}
	return res
}

func TestFormatGolden(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"adjacent.txt": "hello 1\nhello 2\nx\nhello 4\ny\nz\nhello 7\n",
		"b/one.txt":    "before\nhello   \r\nafter\n",
		"c.txt":        "nothing\n",
	})
	root := openRoot(t, dir)
	tests := []struct {
		name, regex, want string
	}{
		// A context line goes with the last match before it in ripgrep's
		// output, in whatever file: b/one.txt's "before" (line 1) becomes
		// a line before adjacent.txt's "hello 7", as cline@2.18.0 shows it.
		{"grouping like Cline's parser", "hello", "Found 5 results.\n\nadjacent.txt\n│----\n│hello 1\n│----\n│hello 2\n│x\n│----\n│hello 4\n│y\n│z\n│----\n│before\n│hello 7\n│----\n\nb/one.txt\n│----\n│hello\n│after\n│----"},
		{"one result", "before", "Found 1 result.\n\nb/one.txt\n│----\n│before\n│hello\n│----"},
		{"no result", "absent", "Found 0 results."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustSearch(t, root, Options{Regex: tt.regex}).Format()
			if got != tt.want {
				t.Errorf("Format() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestFormatCaps(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("match here\n", 10)
	}
	writeTree(t, dir, files)
	root := openRoot(t, dir)
	t.Run("result cap", func(t *testing.T) {
		res := mustSearch(t, root, Options{Regex: "match"})
		out := res.Format()
		if !strings.HasPrefix(out, "Showing first 300 of 300+ results. Use a more specific search if necessary.\n\n") {
			t.Errorf("header = %q", out[:80])
		}
		if res.Count != 300 || !res.Truncated {
			t.Errorf("Count, Truncated = %d, %v; want 300, true", res.Count, res.Truncated)
		}
		if last := res.Files[len(res.Files)-1].Path; last != "f29.txt" {
			t.Errorf("last file = %s, want f29.txt (sorted, first 300)", last)
		}
	})
	t.Run("byte cap", func(t *testing.T) {
		long := strings.Repeat("y", 3000)
		big := map[string]string{}
		for i := range 120 {
			big[fmt.Sprintf("big/g%03d.txt", i)] = "match " + long + "\n"
		}
		writeTree(t, dir, big)
		out := mustSearch(t, root, Options{Regex: "match " + long[:10], Path: "big"}).Format()
		if len(out) >= maxOutputBytes {
			t.Errorf("len = %d, want < %d", len(out), maxOutputBytes)
		}
		if !strings.HasSuffix(out, "[Results truncated due to exceeding the 0.25MB size limit. Please use a more specific search pattern.]") {
			t.Errorf("output does not end with the size note: %q", out[len(out)-120:])
		}
	})
}

// rgContext returns ripgrep's `--context 1` lines per file as "n:M:text" or
// "n:C:text", the input Cline formats.
func rgContext(t *testing.T, dir, pattern string) map[string][]string {
	t.Helper()
	cmd := exec.Command(requireTool(t, "rg"), "--json", "--context", "1", "-e", pattern, ".")
	cmd.Dir = dir
	out, _ := cmd.Output()
	got := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var ev struct {
			Type string
			Data struct {
				Path       struct{ Text string }
				Lines      struct{ Text string }
				LineNumber int `json:"line_number"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type != "match" && ev.Type != "context" {
			continue
		}
		p := strings.TrimPrefix(ev.Data.Path.Text, "./")
		kind := map[string]string{"match": "M", "context": "C"}[ev.Type]
		text := strings.TrimSuffix(ev.Data.Lines.Text, "\n")
		got[p] = append(got[p], fmt.Sprintf("%d:%s:%s", ev.Data.LineNumber, kind, text))
	}
	return got
}

func TestContextLinesMatchRipgrep(t *testing.T) {
	requireTool(t, "rg")
	dir := generatedTree(t)
	root := openRoot(t, dir)
	for _, p := range []string{"hello", "line", `^$`, "filler", "e"} {
		t.Run(p, func(t *testing.T) {
			want := rgContext(t, dir, p)
			res := mustSearch(t, root, Options{Regex: p, MaxResults: 1 << 30})
			got := map[string][]string{}
			for _, f := range res.Files {
				for _, l := range f.Lines {
					kind := "C"
					if l.Match {
						kind = "M"
					}
					got[f.Path] = append(got[f.Path], fmt.Sprintf("%d:%s:%s", l.Number, kind, l.Text))
				}
			}
			for path, w := range want {
				if !slices.Equal(got[path], w) {
					t.Errorf("%s: got %q\nwant %q", path, head(got[path]), head(w))
				}
			}
			if len(got) != len(want) {
				t.Errorf("files: got %d, want %d", len(got), len(want))
			}
		})
	}
}
