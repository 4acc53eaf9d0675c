package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Benchmarks run ours and rg side by side on the same tree; compare the
// ns/op of the ours/rg pairs:
//
//	go test -run '^$' -bench . -benchtime 20x ./handlers/search/
//
// BenchmarkSearch2GB (peak RSS while searching a generated 2 GB tree) runs
// only with TOOLGATE_BENCH_2GB=1, as writing the tree takes a while.

var benchPatterns = []struct{ name, regex string }{
	{"literal", "ErrUnexpectedEOF"},
	{"regex", `func \w+Error\(`},
}

func BenchmarkSearchGoTree(b *testing.B) {
	src := filepath.Join(goRoot(b), "src")
	rg := requireTool(b, "rg")
	root := openRoot(b, src)
	for _, p := range benchPatterns {
		b.Run(p.name+"/ours-cold", func(b *testing.B) {
			for b.Loop() {
				res, err := Search(context.Background(), root, Options{Regex: p.regex}) // cold: no index
				if err != nil {
					b.Fatal(err)
				}
				_ = res.Format()
			}
		})
		// One index across the iterations: with -benchtime 20x this is a
		// search repeated 20 times, the first ones building the index.
		ix := NewIndex(IndexOptions{})
		b.Run(p.name+"/ours-indexed", func(b *testing.B) {
			for b.Loop() {
				res, err := Search(context.Background(), root, Options{Regex: p.regex, Index: ix})
				if err != nil {
					b.Fatal(err)
				}
				_ = res.Format()
			}
		})
		b.Run(p.name+"/rg", func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(rg, "--json", "-e", p.regex, "--context", "1", ".")
				cmd.Dir = src
				if _, err := cmd.Output(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// wideTree makes n files in a tree ten directories wide per level.
func wideTree(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	made := map[string]bool{}
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("d%d/e%d/f%d", i%10, i/10%10, i/100%100))
		if !made[d] {
			made[d] = true
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("file%d.txt", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func BenchmarkWalk100k(b *testing.B) {
	rg := requireTool(b, "rg")
	dir := wideTree(b, 100_000)
	root := openRoot(b, dir)
	b.Run("ours", func(b *testing.B) {
		for b.Loop() {
			res, err := Walk(context.Background(), root, WalkOptions{Recursive: true, Limit: -1})
			if err != nil || len(res.Entries) < 100_000 {
				b.Fatalf("Walk: %d entries, %v", len(res.Entries), err)
			}
		}
	})
	b.Run("rg", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(rg, "--files", ".")
			cmd.Dir = dir
			if _, err := cmd.Output(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSearch2GB searches a generated 2 GB tree, cold and through an
// index, and reports the process's peak RSS during the searches.
func BenchmarkSearch2GB(b *testing.B) {
	if os.Getenv("TOOLGATE_BENCH_2GB") == "" {
		b.Skip("set TOOLGATE_BENCH_2GB=1 to write and search a 2 GB tree")
	}
	dir := bigTree(b, 2<<30)
	root := openRoot(b, dir)
	ix := NewIndex(IndexOptions{})
	runtime.GC()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("cannot reset peak RSS: %v", err)
	}
	for b.Loop() {
		for _, opts := range []Options{{Regex: "needle_[0-9]+"}, {Regex: "needle_7", Index: ix}} {
			if _, err := Search(context.Background(), root, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MB")
}

// bigTree writes about size bytes of text in 1 MB files, a few of them
// holding a match.
func bigTree(b *testing.B, size int) string {
	b.Helper()
	dir := b.TempDir()
	line := []byte("the quick brown fox jumps over the lazy dog 0123456789 lorem ipsum\n")
	chunk := bytes.Repeat(line, (1<<20)/len(line))
	for i := range size / len(chunk) {
		d := filepath.Join(dir, fmt.Sprintf("d%02d", i%64))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		data := chunk
		if i%97 == 0 {
			data = append(append([]byte(nil), chunk...), fmt.Sprintf("needle_%d\n", i)...)
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// peakRSS reads VmHWM, the process's peak resident set, in bytes.
func peakRSS(b *testing.B) int64 {
	b.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	b.Skip("no VmHWM in /proc/self/status")
	return 0
}
