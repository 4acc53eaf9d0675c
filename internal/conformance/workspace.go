package conformance

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// BaseTime is the modification time of the generated workspace's oldest
// file; each further file (in path order) is one second newer, so tools
// that sort by modification time see one fixed order on both sides.
var BaseTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// Generate writes the conformance workspace into dir (which must exist
// and be empty): the same bytes, the same git history and the same
// modification times each time, so two calls give two identical
// workspaces. It holds what tools treat specially: CRLF text, a file over
// 2,000 lines, lines over 2,000 characters, unicode, a notebook, a PNG, a
// binary, a PDF, nested directories, gitignored files, an empty file and
// a file without a final newline.
func Generate(dir string) error {
	files := workspaceFiles()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, files[name], mode); err != nil {
			return err
		}
	}
	if err := commitAll(dir); err != nil {
		return err
	}
	// Times last: git add leaves the work tree's times alone, but
	// directories gained entries until now.
	for i, name := range names {
		t := BaseTime.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), t, t); err != nil {
			return err
		}
	}
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return os.Chtimes(p, BaseTime, BaseTime)
		}
		return nil
	})
}

// commitAll makes dir a git repository with one commit of everything not
// ignored, by a fixed author at a fixed date, with no user or system git
// configuration, so the commit's id is the same each time.
func commitAll(dir string) error {
	date := BaseTime.Format(time.RFC3339)
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Conformance", "GIT_AUTHOR_EMAIL=conformance@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Conformance", "GIT_COMMITTER_EMAIL=conformance@example.com", "GIT_COMMITTER_DATE="+date)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "core.autocrlf=false", "add", "-A"},
		{"-c", "core.autocrlf=false", "commit", "-q", "-m", "workspace"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// workspaceFiles is the workspace's content by slash path.
func workspaceFiles() map[string][]byte {
	f := map[string][]byte{
		".gitignore":  []byte("*.log\nbuild/\n.env.local\n"),
		"README.md":   []byte("# Sample project\n\nA workspace for conformance tests.\n\n## Usage\n\nRun `make` to build. See docs/guide.md.\n"),
		"src/main.go": []byte(mainGo),
		"src/util/strings.go": []byte("package util\n\n// Reverse returns s reversed by runes.\nfunc Reverse(s string) string {\n\tr := []rune(s)\n" +
			"\tfor i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {\n\t\tr[i], r[j] = r[j], r[i]\n\t}\n\treturn string(r)\n}\n\n" +
			"// Upper is a TODO: it returns s unchanged.\nfunc Upper(s string) string { return s }\n"),
		"src/util/strings_test.go":     []byte("package util\n\nimport \"testing\"\n\nfunc TestReverse(t *testing.T) {\n\tif Reverse(\"abc\") != \"cba\" {\n\t\tt.Fatal(\"Reverse\")\n\t}\n}\n"),
		"src/lib/deep/nested/leaf.txt": []byte("a leaf deep in the tree\nneedle in a nested file\n"),
		"src/lib/helper.py":            []byte("def helper(x):\n    # TODO: handle None\n    return x * 2\n\n\nclass Widget:\n    def render(self):\n        return \"<widget>\"\n"),
		"src/app.js":                   []byte("function main() {\n  console.log('hello');\n  // TODO: wire the needle\n}\n\nmodule.exports = { main };\n"),
		"docs/guide.md":                []byte("# Guide\n\nStep one: read the README.\nStep two: find the needle.\nStep three: done.\n"),
		"docs/notes.txt":               []byte("Notes\nNEEDLE in upper case\nneedle in lower case\nNeedle in title case\n"),
		"crlf.txt":                     []byte("first line\r\nsecond line with needle\r\nthird line\r\n"),
		"unicode.txt":                  []byte("café naïve résumé\n日本語のテキスト\nemoji 🚀 rocket and ✨ sparkles\nΕλληνικά κείμενο\nneedle ünïcödé\n"),
		"empty.txt":                    {},
		"no_newline.txt":               []byte("first\nlast line without newline"),
		"edit/target.txt":              []byte("alpha\nbeta\ngamma\nbeta\ndelta\n"),
		"edit/replace_all.txt":         []byte("foo one\nfoo two\nfoo three\n"),
		"edit/crlf_edit.txt":           []byte("keep\r\nchange me\r\nkeep too\r\n"),
		"edit/unread.txt":              []byte("never read before the edit\n"),
		"edit/overwrite.txt":           []byte("old content\nto be overwritten\n"),
		"config.json":                  []byte("{\n  \"name\": \"sample\",\n  \"version\": 3,\n  \"needle\": true\n}\n"),
		"scripts/build.sh":             []byte("#!/bin/sh\necho building\n"),
		"debug.log":                    []byte("ignored log line with needle\n"),
		"build/out.txt":                []byte("ignored build output with needle\n"),
		".env.local":                   []byte("SECRET=ignored\n"),
		"big.txt":                      bigText(),
		"long_lines.txt":               longLines(),
		"notebook.ipynb":               []byte(notebook),
		"image.png":                    pngImage(),
		"data.bin":                     binaryData(),
		"doc.pdf":                      pdfDocument(),
	}
	return f
}

const mainGo = `package main

import (
	"fmt"
	"os"
)

// main prints a greeting.
func main() {
	name := "world"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	fmt.Printf("hello, %s\n", name) // needle
}
`

// bigText is 2,500 numbered lines, every 100th holding "needle".
func bigText() []byte {
	var b bytes.Buffer
	for i := 1; i <= 2500; i++ {
		if i%100 == 0 {
			fmt.Fprintf(&b, "line %04d: needle here\n", i)
			continue
		}
		fmt.Fprintf(&b, "line %04d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.Bytes()
}

// longLines has two lines over 2,000 characters between short ones.
func longLines() []byte {
	return []byte("short line one\n" + strings.Repeat("abcdefghij", 300) + "\nshort line three\n" +
		strings.Repeat("é", 2100) + " needle\nlast\n")
}

// binaryData is 512 bytes counting up, NULs included.
func binaryData() []byte {
	b := make([]byte, 512)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

// pngImage is a 16x8 gradient.
func pngImage() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 8))
	for y := 0; y < 8; y++ {
		for x := 0; x < 16; x++ {
			img.Set(x, y, color.RGBA{R: uint8(x * 16), G: uint8(y * 32), B: 128, A: 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

const notebook = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Notebook\n",
    "An introduction."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "compute",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "42\n"
     ]
    }
   ],
   "source": [
    "x = 6 * 7\n",
    "print(x)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "empty",
   "metadata": {},
   "outputs": [],
   "source": []
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`

// pdfDocument is a two-page PDF with one line of text a page, its cross
// reference table computed from the objects it writes.
func pdfDocument() []byte {
	page := func(text string) string {
		return fmt.Sprintf("BT /F1 18 Tf 72 720 Td (%s) Tj ET", text)
	}
	c1, c2 := page("Page one says needle."), page("Page two says goodbye.")
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 7 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R /Resources << /Font << /F1 7 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c1), c1),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c2), c2),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	return pdfFile(objs)
}
