package search

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Benchmarks run ours and rg side by side on the same tree; compare the
// ns/op of the ours/rg pairs:
//
//	go test -run '^$' -bench . -benchtime 20x ./handlers/search/

var benchPatterns = []struct{ name, regex string }{
	{"literal", "ErrUnexpectedEOF"},
	{"regex", `func \w+Error\(`},
}

func BenchmarkSearchGoTree(b *testing.B) {
	src := filepath.Join(runtime.GOROOT(), "src")
	rg := requireTool(b, "rg")
	root := openRoot(b, src)
	for _, p := range benchPatterns {
		b.Run(p.name+"/ours", func(b *testing.B) {
			for b.Loop() {
				res, err := Search(context.Background(), root, Options{Regex: p.regex})
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
