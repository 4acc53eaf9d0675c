package cline

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// workspaceFiles is the generated workspace: a git repository with a CRLF
// file, a file over 1,000 lines, unicode text, a .clineignore'd file and
// folder, a .gitignored folder, nested directories, Go and TypeScript
// sources; makeWorkspace adds an image, a PDF and an empty directory.
func workspaceFiles() map[string]string {
	var big strings.Builder
	for i := 1; i <= 1200; i++ {
		fmt.Fprintf(&big, "line %d of a long file\n", i)
	}
	return map[string]string{
		"README.md":        "# Demo\n\nGrüße aus Köln — naïve café ✓ 日本語のテキスト\n\nTODO: write the docs\n",
		".clineignore":     "secret.env\nprivate/\n",
		".gitignore":       "build/\n",
		"secret.env":       "API_KEY=hunter2\nTODO: rotate\n",
		"private/keys.txt": "private key material\nTODO: hide\n",
		"build/out.txt":    "generated output\nTODO: ignored by git\n",
		"crlf.txt":         "first line\r\nsecond line\r\nthird line\r\n",
		"big.txt":          big.String(),
		"edit.txt":         "alpha\nbeta\ngamma\ndelta\n",
		"overwrite.txt":    "old content\n",
		"src/main.go": "package main\n\nimport \"fmt\"\n\n// Greeter greets.\ntype Greeter struct {\n\tName string\n}\n\n" +
			"// Shape is a shape.\ntype Shape interface {\n\tArea() float64\n}\n\n" +
			"func (g Greeter) Greet() string {\n\treturn \"hello \" + g.Name // TODO: i18n\n}\n\nfunc main() {\n\tfmt.Println(Greeter{Name: \"x\"}.Greet())\n}\n",
		"src/app.ts": "export interface Options {\n  verbose: boolean;\n}\n\nexport class App {\n  run(opts: Options): number {\n    return opts.verbose ? 1 : 0;\n  }\n}\n\n" +
			"export function start(): App {\n  return new App();\n}\n\nexport const stop = (app: App): void => {\n  // TODO: stop\n};\n",
		"src/nested/deep/util.ts": "export function helper(x: number): number {\n  return x * 2;\n}\n",
		"src/nested/notes.md":     "nested notes\n",
		"scripts/long.sh":         "#!/bin/sh\nfor i in $(seq 1 3000); do echo \"output line $i\"; done\n",
	}
}

// makeWorkspace writes the workspace into dir and commits it to a fresh
// git repository (fixed author and dates, so every copy is the same).
func makeWorkspace(dir string) error {
	for name, body := range workspaceFiles() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "image.png"), pngBytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "doc.pdf"), pdfBytes(), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "workspace"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
	}
	return nil
}

// copyWorkspace copies src to dst whole (modes, the git directory).
func copyWorkspace(src, dst string) error {
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a: %v: %s", err, out)
	}
	return nil
}

// pngBytes is a 4x4 image.
func pngBytes() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range 16 {
		img.Set(i%4, i/4, color.RGBA{R: uint8(i * 16), G: 128, B: 255 - uint8(i*16), A: 255})
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// pdfBytes is a one-page PDF with two lines of text, padded past 4 KB:
// pdf-parse, Cline's PDF library, fails on PDFs below about that size.
func pdfBytes() []byte {
	stream := "BT /F1 12 Tf 72 720 Td (Conformance PDF first line) Tj 0 -16 Td (second line of the PDF) Tj ET\n" +
		"% " + strings.Repeat("padding ", 600) + "\n"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
