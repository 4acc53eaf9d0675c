package handlers

import (
	"context"
	"testing"
)

// TestWriteFileAsGiven: write_file (Claude Code's Write) writes the
// content as given, so LF text over a CRLF file stays LF, as Claude
// Code's Write leaves it; the approval preview shows the same bytes.
func TestWriteFileAsGiven(t *testing.T) {
	ws := workspaceWith(t, nil)
	call := editCall(ws, "toolu_1")
	if _, err := writeFileReadFirst(context.Background(), call, &WriteToFileInput{Path: "f.txt", Content: new("a\r\nb\r\n")}); err != nil {
		t.Fatal(err)
	}
	in := &WriteToFileInput{Path: "f.txt", Content: new("x\ny\n")}
	preview, err := previewAsGiven(context.Background(), call, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writeFileReadFirst(context.Background(), call, in); err != nil {
		t.Fatal(err)
	}
	if got := readWS(t, ws, "f.txt"); got != "x\ny\n" {
		t.Errorf("f.txt = %q, want the LF text as given", got)
	}
	if want := diffText("f.txt", []byte("a\r\nb\r\n"), []byte("x\ny\n")); preview != want {
		t.Errorf("preview %q, want %q", preview, want)
	}
}
