package handlers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/dialect/cline"
)

const defsGo = "package p\n\n// T is a type.\ntype T struct{}\n\nfunc (T) M() {}\n\nfunc F() int {\n\treturn 1\n}\n"

func TestListCodeDefinitionNames(t *testing.T) {
	requireTool(t, "ctags", "universal-ctags")
	ws := workspaceWith(t, map[string]string{
		"pkg/p.go":        defsGo,
		"pkg/secret.go":   "package p\n\nfunc Hidden() {}\n",
		"pkg/sub/deep.go": "package sub\n\nfunc Deep() {}\n",
		"empty/README.md": "# nothing\n",
	})
	tests := []struct {
		name    string
		path    string
		exclude excludeFunc
		want    string
	}{
		{"top-level files only, grouped per file", "pkg", nil,
			"p.go\n|----\n│type T struct{}\n|----\n│func (T) M() {}\n|----\n│func F() int {\n|----\n\n" +
				"secret.go\n|----\n│func Hidden() {}\n|----\n\n"},
		{"excluded file left out and counted", "pkg", excludeNames("secret.go"),
			"p.go\n|----\n│type T struct{}\n|----\n│func (T) M() {}\n|----\n│func F() int {\n|----" +
				"\n\n(1 entry was left out because .clineignore excludes it.)"},
		{"no definitions", "empty", nil, "No source code definitions found."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := listCodeDefinitionNames(bg, ws, cline.Texts{}, &ListCodeDefinitionNamesInput{Path: tc.path}, tc.exclude)
			if got := okText(t, res, err); got != tc.want {
				t.Errorf("output:\n%q\nwant:\n%q", got, tc.want)
			}
		})
	}
}

func TestListCodeDefinitionNamesConfinement(t *testing.T) {
	requireTool(t, "ctags", "universal-ctags")
	out := outsideDir(t)
	if err := os.WriteFile(filepath.Join(out, "x.go"), []byte("package x\n\nfunc Outside() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := workspaceWith(t, map[string]string{"p.go": defsGo})
	if err := os.Symlink(out, filepath.Join(ws.Dir, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "x.go"), filepath.Join(ws.Dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, code string }{
		{"parent directory", "..", "outside_workspace"},
		{"absolute path outside", out, "outside_workspace"},
		{"symlink leading outside", "escape", "outside_workspace"},
		{"a file", "p.go", "not_directory"},
		{"missing directory", "nope", "not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := listCodeDefinitionNames(bg, ws, cline.Texts{}, &ListCodeDefinitionNamesInput{Path: tc.path}, nil)
			wantToolError(t, err, tc.code)
		})
	}
	t.Run("symlinked file is not read", func(t *testing.T) {
		res, err := listCodeDefinitionNames(bg, ws, cline.Texts{}, &ListCodeDefinitionNamesInput{Path: "."}, nil)
		if got := okText(t, res, err); strings.Contains(got, "Outside") {
			t.Errorf("output reads through a symlink:\n%s", got)
		}
	})
}
