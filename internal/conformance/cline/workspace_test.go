package cline

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/internal/conformance"
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
		"src/nested/deep/util.ts":   "export function helper(x: number): number {\n  return x * 2;\n}\n",
		"src/nested/notes.md":       "nested notes\n",
		"node_modules/dep/index.js": "module.exports = 1;\n",
		".config/settings.json":     "{\"a\": 1}\n",
		// Cline puts an empty line after the lines of the first chunk it
		// reads, so where that chunk ends must not change what either
		// side shows: sed writes 4 KB blocks (toolgate's first read, over
		// 100 lines), Cline reads at most 64 KB (under the last 100 of
		// 10,000 lines); an echo a line would make the first chunk as
		// short as the reader is fast.
		"scripts/long.sh": "#!/bin/sh\nseq 1 10000 | sed 's/^/output line /'\n",
	}
}

// makeWorkspace writes the workspace into dir and commits it to a fresh
// git repository (conformance.Commit: every copy is the same).
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
	if err := os.WriteFile(filepath.Join(dir, "image.png"), conformance.PNG(4, 4), 0o644); err != nil {
		return err
	}
	// Padded past 4 KB: pdf-parse, Cline's PDF library, fails on PDFs
	// below about that size.
	if err := os.WriteFile(filepath.Join(dir, "doc.pdf"), conformance.PDF(4800, []string{"Conformance PDF first line", "second line of the PDF"}), 0o644); err != nil {
		return err
	}
	return conformance.Commit(dir)
}

// copyWorkspace copies src to dst whole (modes, the git directory).
func copyWorkspace(src, dst string) error {
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a: %v: %s", err, out)
	}
	return nil
}
