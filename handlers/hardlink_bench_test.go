package handlers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// BenchmarkReadFileHardLinkCheck is read_file of a 4 KiB file in a
// workspace of 2,000 files, side by side: a file with one name (the
// check costs an fstat), a file with two names both in the workspace
// (the names found by the last walk still stand: one lstat per name),
// and the same file after its second name changed before every read (a
// walk of the workspace each time, the worst case).
// Run: go test -run '^$' -bench ReadFileHardLinkCheck ./handlers/
func BenchmarkReadFileHardLinkCheck(b *testing.B) {
	files := map[string]string{}
	for i := range 2000 {
		files[fmt.Sprintf("src/d%02d/f%04d.go", i%40, i)] = "package x\n"
	}
	body := strings.Repeat("some text of a file\n", 200)
	files["one.txt"], files["two.txt"] = body, body
	ws := workspaceWith(b, files)
	if err := os.Link(filepath.Join(ws.Dir, "two.txt"), filepath.Join(ws.Dir, "two-again.txt")); err != nil {
		b.Fatal(err)
	}
	read := func(b *testing.B, path string) {
		if _, err := readFile(context.Background(), &tool.Call{Workspace: ws}, &ReadFileInput{Path: path}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("names=1", func(b *testing.B) {
		for b.Loop() {
			read(b, "one.txt")
		}
	})
	b.Run("names=2", func(b *testing.B) {
		for b.Loop() {
			read(b, "two.txt")
		}
	})
	cur, n := filepath.Join(ws.Dir, "two-again.txt"), 0
	b.Run("names=2,renamed", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			n++
			next := filepath.Join(ws.Dir, fmt.Sprintf("two-%d.txt", n))
			if err := os.Rename(cur, next); err != nil {
				b.Fatal(err)
			}
			cur = next
			b.StartTimer()
			read(b, "two.txt")
		}
	})
}
