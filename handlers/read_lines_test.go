package handlers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolgate/toolgate/api"
)

// TestReadLines follows Claude Code's Read as its tool prompt describes it
// (tools/FileReadTool/prompt.ts): cat -n form, 2000 lines by default,
// lines over 2000 characters cut, images as images, notebooks as cells.
func TestReadLines(t *testing.T) {
	long := strings.Repeat("é", 1500)   // 1500 characters in 3000 bytes
	longer := strings.Repeat("é", 2500) // 2500 characters
	astral := strings.Repeat("😀", 1500) // 3000 UTF-16 code units, as JavaScript counts
	var many strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	nb := `{"cells": [{"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "text"]},
		{"cell_type": "code", "metadata": {}, "source": "print(1)", "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]}]}],
		"metadata": {}, "nbformat": 4, "nbformat_minor": 4}`
	ws := workspaceWith(t, map[string]string{"a.txt": "one\r\ntwo\n\tthree", "long.txt": long + "\n" + longer + "\n" + astral + "\n", "many.txt": many.String(),
		"empty.txt": "", "img.png": png, "nb.ipynb": nb})
	read := func(in ReadLinesInput) (string, []api.Content, error) {
		res, err := readLines(context.Background(), editCall(ws, "t"), &in)
		return resultText(res), res.Content, err
	}
	t.Run("cat -n", func(t *testing.T) {
		got, _, err := read(ReadLinesInput{Path: "a.txt"})
		if want := "     1\tone\n     2\ttwo\n     3\t\tthree\n"; err != nil || got != want {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
	})
	t.Run("offset and limit", func(t *testing.T) {
		got, _, _ := read(ReadLinesInput{Path: "many.txt", Offset: 10, Limit: 2})
		if want := "    10\tline 10\n    11\tline 11\n\n[Showing lines 10-11. Read on with offset=12.]"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("2000 lines by default", func(t *testing.T) {
		got, _, _ := read(ReadLinesInput{Path: "many.txt"})
		if !strings.Contains(got, "  2000\tline 2000\n") || strings.Contains(got, "line 2001") || !strings.HasSuffix(got, "offset=2001.]") {
			t.Errorf("default window ends %q", got[len(got)-80:])
		}
	})
	// Characters, not bytes: Claude Code's Read is JavaScript and counts a
	// line's length in UTF-16 code units (tools/FileReadTool/prompt.ts:
	// "Any lines longer than 2000 characters will be truncated").
	t.Run("long lines cut at 2000 characters", func(t *testing.T) {
		got, _, _ := read(ReadLinesInput{Path: "long.txt"})
		want := "     1\t" + long + "\n     2\t" + strings.Repeat("é", 2000) + "\n     3\t" + strings.Repeat("😀", 1000) + "\n"
		if got != want {
			t.Errorf("got lines of %v runes, want 1500, 2000 and 1000", lineRunes(got))
		}
	})
	t.Run("empty and short files", func(t *testing.T) {
		if got, _, _ := read(ReadLinesInput{Path: "empty.txt"}); !strings.Contains(got, "contents are empty") {
			t.Errorf("empty: %q", got)
		}
		if got, _, _ := read(ReadLinesInput{Path: "a.txt", Offset: 9}); !strings.Contains(got, "shorter than the provided offset (9). The file has 3 lines.") {
			t.Errorf("past the end: %q", got)
		}
	})
	t.Run("image", func(t *testing.T) {
		_, content, err := read(ReadLinesInput{Path: "img.png"})
		if err != nil || len(content) != 1 || content[0].Type != api.TypeImage || content[0].Source.MediaType != "image/png" {
			t.Errorf("image read = %+v, %v", content, err)
		}
	})
	t.Run("notebook cells", func(t *testing.T) {
		got, _, err := read(ReadLinesInput{Path: "nb.ipynb"})
		want := "<cell id=\"intro\"><cell_type>markdown</cell_type># Title\ntext</cell id=\"intro\">\n" +
			"<cell id=\"cell-1\">print(1)</cell id=\"cell-1\">\n\n1\n"
		if err != nil || got != want {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
	})
	t.Run("a read is remembered for the stale-file guard", func(t *testing.T) {
		call := editCall(ws, "t")
		if _, err := readLines(context.Background(), call, &ReadLinesInput{Path: "a.txt"}); err != nil {
			t.Fatal(err)
		}
		if _, ok := call.Files.Seen("a.txt"); !ok {
			t.Error("read_lines did not record the read")
		}
	})
}

// lineRunes counts the characters of each numbered line of a Read answer.
func lineRunes(text string) []int {
	var out []int
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		_, body, _ := strings.Cut(l, "\t")
		out = append(out, utf8.RuneCountInString(body))
	}
	return out
}
