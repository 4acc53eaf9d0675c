package handlers

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// TestReadUnchanged follows Claude Code 2.1's Read deduplication: a read
// of the window the session last read, of a file whose mtime has not
// moved, is answered "unchanged" instead of the lines; another window, a
// write in between, a changed mtime or an image is read again.
func TestReadUnchanged(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	ws := workspaceWith(t, map[string]string{"a.txt": "one\ntwo\n", "img.png": png})
	call := editCall(ws, "t")
	read := func(in ReadLinesInput) string {
		t.Helper()
		in.Split, in.Unchanged = true, true
		res, err := readLines(context.Background(), call, &in)
		if err != nil {
			t.Fatal(err)
		}
		return resultText(res)
	}
	lines := "1\tone\n2\ttwo\n3\t"
	steps := []struct {
		name   string
		before func()
		in     ReadLinesInput
		want   string
	}{
		{"first read", nil, ReadLinesInput{Path: "a.txt"}, lines},
		{"same window", nil, ReadLinesInput{Path: "a.txt"}, ReadUnchanged},
		{"offset 1 is the default", nil, ReadLinesInput{Path: "a.txt", Offset: 1}, ReadUnchanged},
		{"another window", nil, ReadLinesInput{Path: "a.txt", Limit: 1}, "1\tone"},
		{"the first window again", nil, ReadLinesInput{Path: "a.txt"}, lines},
		{"after a write", func() { call.Files.Remember("a.txt", tool.FileState{}) }, ReadLinesInput{Path: "a.txt"}, lines},
		{"after the mtime moved", func() {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(ws.Dir, "a.txt"), later, later); err != nil {
				t.Fatal(err)
			}
		}, ReadLinesInput{Path: "a.txt"}, lines},
		{"then unchanged", nil, ReadLinesInput{Path: "a.txt"}, ReadUnchanged},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		if got := read(s.in); got != s.want {
			t.Errorf("%s: got %q, want %q", s.name, got, s.want)
		}
	}
	read(ReadLinesInput{Path: "img.png"})
	if got := read(ReadLinesInput{Path: "img.png"}); got == ReadUnchanged {
		t.Errorf("an image read twice was answered unchanged")
	}
	without, err := readLines(context.Background(), call, &ReadLinesInput{Path: "a.txt", Split: true})
	if err != nil || resultText(without) != lines {
		t.Errorf("without Unchanged: %q, %v", resultText(without), err)
	}
}
