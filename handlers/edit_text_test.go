package handlers

import (
	"context"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestEditText follows Claude Code's Edit and MultiEdit
// (tools/FileEditTool/prompt.ts, tools/MultiEditTool/prompt.ts): old_string
// unique unless replace_all, differing from new_string, the file read
// first, edits applied in order and all or nothing; and the text editor's
// insert (docs.anthropic.com text editor tool: insert_line, insert_text).
func TestEditText(t *testing.T) {
	const src = "a := 1\nb := 1\nc := 2\n"
	for _, tc := range []struct {
		name     string
		in       EditTextInput
		code     string
		want     string // the file afterwards
		errMatch string
	}{
		{name: "unique replace", in: EditTextInput{Edits: []TextEdit{{OldString: "c := 2", NewString: "c := 3"}}}, want: "a := 1\nb := 1\nc := 3\n"},
		{name: "not unique", in: EditTextInput{Edits: []TextEdit{{OldString: ":= 1", NewString: ":= 9"}}}, code: CodeMultipleMatches, errMatch: "occurs 2 times", want: src},
		{name: "replace_all", in: EditTextInput{Edits: []TextEdit{{OldString: ":= 1", NewString: ":= 9", ReplaceAll: true}}}, want: "a := 9\nb := 9\nc := 2\n"},
		{name: "no match", in: EditTextInput{Edits: []TextEdit{{OldString: "zzz", NewString: "y"}}}, code: CodeNoMatch, want: src},
		{name: "no change", in: EditTextInput{Edits: []TextEdit{{OldString: "a", NewString: "a"}}}, code: CodeNoChange, want: src},
		{name: "in order", in: EditTextInput{Edits: []TextEdit{{OldString: "a := 1", NewString: "a := 7"}, {OldString: "a := 7\nb", NewString: "A"}}}, want: "A := 1\nc := 2\n"},
		{name: "all or nothing", in: EditTextInput{Edits: []TextEdit{{OldString: "a := 1", NewString: "a := 7"}, {OldString: "missing", NewString: "x"}}},
			code: CodeNoMatch, errMatch: "Edit 2", want: src},
		{name: "create with empty old_string", in: EditTextInput{Edits: []TextEdit{{OldString: "", NewString: "x"}}}, code: CodeFileExists, want: src},
		{name: "insert", in: EditTextInput{Insert: &TextInsert{Line: 1, Text: "new"}}, want: "a := 1\nnew\nb := 1\nc := 2\n"},
		{name: "insert at top", in: EditTextInput{Insert: &TextInsert{Line: 0, Text: "top\n"}}, want: "top\na := 1\nb := 1\nc := 2\n"},
		{name: "insert past the end", in: EditTextInput{Insert: &TextInsert{Line: 4, Text: "x"}}, code: CodeBadInsertLine, errMatch: "[0, 3]", want: src},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := workspaceWith(t, map[string]string{"f.go": src})
			in := tc.in
			in.Path = "f.go"
			res, err := editText(context.Background(), editCall(ws, "t"), &in)
			if got := toolCode(t, err); got != tc.code {
				t.Fatalf("code = %q (%v), want %q", got, err, tc.code)
			}
			if err != nil && !strings.Contains(err.Error(), tc.errMatch) {
				t.Errorf("error %q lacks %q", err, tc.errMatch)
			}
			if err == nil && !strings.Contains(resultText(res), "\t") {
				t.Errorf("result %q has no cat -n snippet", resultText(res))
			}
			if got := readWS(t, ws, "f.go"); got != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEditTextGuards(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"f.txt": "old\n", "crlf.txt": "one\r\ntwo\r\n"})
	call := editCall(ws, "t")
	edit := &EditTextInput{Path: "f.txt", Edits: []TextEdit{{OldString: "old", NewString: "new"}}, RequireRead: true}
	t.Run("must have been read", func(t *testing.T) {
		_, err := editText(context.Background(), call, edit)
		if toolCode(t, err) != api.ToolCodeReadRequired {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("stale after a change on disk", func(t *testing.T) {
		if _, err := readLines(context.Background(), call, &ReadLinesInput{Path: "f.txt"}); err != nil {
			t.Fatal(err)
		}
		writeFileT(t, ws, "f.txt", "old, changed\n")
		_, err := editText(context.Background(), call, edit)
		if toolCode(t, err) != api.ToolCodeFileChanged || readWS(t, ws, "f.txt") != "old, changed\n" {
			t.Fatalf("err = %v, file = %q", err, readWS(t, ws, "f.txt"))
		}
	})
	t.Run("CRLF kept", func(t *testing.T) {
		_, err := editText(context.Background(), call, &EditTextInput{Path: "crlf.txt", Edits: []TextEdit{{OldString: "one\ntwo", NewString: "1\n2"}}})
		if err != nil || readWS(t, ws, "crlf.txt") != "1\r\n2\r\n" {
			t.Fatalf("err = %v, file = %q", err, readWS(t, ws, "crlf.txt"))
		}
	})
	t.Run("a new file", func(t *testing.T) {
		_, err := editText(context.Background(), call, &EditTextInput{Path: "new.txt", Edits: []TextEdit{{OldString: "", NewString: "hi\n"}}, RequireRead: true})
		if err != nil || readWS(t, ws, "new.txt") != "hi\n" {
			t.Fatalf("err = %v, file = %q", err, readWS(t, ws, "new.txt"))
		}
	})
	t.Run("revertable", func(t *testing.T) {
		if _, ok := call.Files.Seen("new.txt"); !ok {
			t.Error("the edit was not remembered")
		}
	})
}

// TestNotebookEdit follows Claude Code's NotebookEdit
// (tools/NotebookEditTool/prompt.ts): replace, insert after a cell, delete.
func TestNotebookEdit(t *testing.T) {
	nb := `{"cells": [{"cell_type": "code", "id": "a1", "metadata": {}, "source": "x = 1", "outputs": [{"output_type": "stream", "text": "old"}], "execution_count": 3}],
		"metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}`
	ws := workspaceWith(t, map[string]string{"n.ipynb": nb})
	call := editCall(ws, "t")
	run := func(in NotebookEditInput) (string, error) {
		in.Path = "n.ipynb"
		res, err := notebookEdit(context.Background(), call, &in)
		return resultText(res), err
	}
	if _, err := run(NotebookEditInput{CellID: "a1", NewSource: "x = 2"}); toolCode(t, err) != api.ToolCodeReadRequired {
		t.Fatalf("unread notebook: %v", err)
	}
	if _, err := readLines(context.Background(), call, &ReadLinesInput{Path: "n.ipynb"}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(NotebookEditInput{CellID: "a1", NewSource: "x = 2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(NotebookEditInput{CellID: "a1", NewSource: "# Notes", CellType: "markdown", EditMode: "insert"}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(NotebookEditInput{CellID: "zz", NewSource: "", EditMode: "delete"}); toolCode(t, err) != "cell_not_found" {
		t.Fatalf("unknown cell: %v", err)
	}
	got, err := readLines(context.Background(), call, &ReadLinesInput{Path: "n.ipynb"})
	text := resultText(got)
	if err != nil || !strings.HasPrefix(text, "<cell id=\"a1\">x = 2</cell id=\"a1\">\n<cell id=") || !strings.Contains(text, "<cell_type>markdown</cell_type># Notes") {
		t.Errorf("notebook now reads %q", text)
	}
	if raw := readWS(t, ws, "n.ipynb"); !strings.Contains(raw, `"kernelspec"`) || strings.Contains(raw, `"old"`) {
		t.Errorf("metadata lost or stale outputs kept: %s", raw)
	}
}
