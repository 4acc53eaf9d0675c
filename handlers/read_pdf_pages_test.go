package handlers

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestReadPDFPages renders PDF pages as Claude Code 2.1's Read does:
// pdftoppm -jpeg -r 100 with the page range, the PDF on its standard
// input, each page an image after a line naming them; without pdftoppm,
// Claude Code's answer that poppler is missing. A stand-in pdftoppm on
// PATH checks what it is given and writes the pages.
func TestReadPDFPages(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"doc.pdf": "%PDF-1.4 stand-in\n", "notes.txt": "text\n"})
	call := editCall(ws, "t")
	read := func(pages string) (tool string, content []api.Content, err error) {
		res, err := readLines(context.Background(), call, &ReadLinesInput{Path: "doc.pdf", Pages: pages, Split: true})
		return resultText(res), res.Content, err
	}

	t.Setenv("PATH", t.TempDir())
	if _, _, err := read("2"); err == nil || !strings.Contains(err.Error(), "pdftoppm is not installed") {
		t.Fatalf("without pdftoppm: %v", err)
	}

	bin := t.TempDir()
	script := `#!/bin/sh
[ "$1 $2 $3 $4 $5 $6 $7" = "-jpeg -r 100 -f 2 -l 3" ] || { echo "args: $*" >&2; exit 9; }
[ "$(cat "$8")" = "%PDF-1.4 stand-in" ] || { echo "stdin: not the PDF" >&2; exit 8; }
printf 'jpeg-2' > "$9-2.jpg"; printf 'jpeg-3' > "$9-3.jpg"
`
	if err := os.WriteFile(filepath.Join(bin, "pdftoppm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	text, content, err := read("2-3")
	if err != nil {
		t.Fatal(err)
	}
	if want := "PDF pages extracted: 2 page(s) from " + filepath.Join(ws.Dir, "doc.pdf") + " (18 bytes)"; content[0].Text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if len(content) != 3 || content[1].Source == nil || content[1].Source.Data != base64.StdEncoding.EncodeToString([]byte("jpeg-2")) ||
		content[2].Source.Data != base64.StdEncoding.EncodeToString([]byte("jpeg-3")) || content[1].Source.MediaType != "image/jpeg" {
		t.Errorf("content = %+v, want the two pages as JPEG images in order", content)
	}
	if _, _, err := read("5"); err == nil || !strings.Contains(err.Error(), "pdftoppm failed") {
		t.Errorf("a failing pdftoppm: %v", err)
	}
	res, err := readLines(context.Background(), call, &ReadLinesInput{Path: "notes.txt", Pages: "2", Split: true})
	if err != nil || resultText(res) != "1\ttext\n2\t" {
		t.Errorf("pages on a text file are ignored: %q, %v", resultText(res), err)
	}
}

// TestParsePDFPages reads the forms Claude Code's Read accepts.
func TestParsePDFPages(t *testing.T) {
	for in, want := range map[string]PDFPages{"3": {3, 3}, "1-5": {1, 5}, " 10- ": {10, 0}} {
		if got, ok := ParsePDFPages(in); !ok || got != want {
			t.Errorf("ParsePDFPages(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "0", "5-3", "a", "-2", "1-x"} {
		if _, ok := ParsePDFPages(in); ok {
			t.Errorf("ParsePDFPages(%q) accepted", in)
		}
	}
}
