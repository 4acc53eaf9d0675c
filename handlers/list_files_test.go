package handlers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/dialect/cline"
)

func TestListFiles(t *testing.T) {
	ws := workspaceWith(t, map[string]string{
		".git/HEAD":               "ref\n",
		".gitignore":              "*.log\n",
		"README.md":               "",
		"app.log":                 "",
		"src/main.go":             "",
		"src/.gitignore":          "gen/\n",
		"src/gen/out.go":          "",
		"src/lib/util.go":         "",
		"node_modules/x/index.js": "",
		".hidden/inside.txt":      "",
	})
	tests := []struct {
		name string
		in   ListFilesInput
		want string
	}{
		// Cline's order (prompts/responses.ts formatFilesList): the files of
		// a directory before its subdirectories, names by collation.
		{"top level applies no .gitignore, as Cline's", ListFilesInput{Path: "."},
			".gitignore\napp.log\nREADME.md\n.git/\n.hidden/\nnode_modules/\nsrc/"},
		// Recursive: hidden and dependency directories are left out whole,
		// as Cline's glob ignores **/.*/** and **/node_modules/**.
		{"recursive with nested gitignore and default excludes", ListFilesInput{Path: ".", Recursive: true},
			".gitignore\nREADME.md\nsrc/\nsrc/.gitignore\nsrc/main.go\nsrc/lib/\nsrc/lib/util.go"},
		{"subdirectory shown relative to itself", ListFilesInput{Path: "src", Recursive: true},
			".gitignore\nmain.go\nlib/\nlib/util.go"},
		{"absolute path inside the workspace", ListFilesInput{Path: filepath.Join(ws.Dir, "src", "lib")},
			"util.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := listFiles(bg, ws, cline.Texts{}, &tc.in, nil)
			if got := okText(t, res, err); got != tc.want {
				t.Errorf("listing:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestListFilesCapNote(t *testing.T) {
	files := map[string]string{}
	for i := range 250 {
		files[fmt.Sprintf("d/f%03d.txt", i)] = ""
	}
	ws := workspaceWith(t, files)
	t.Run("recursive listing stops at 200 with a note", func(t *testing.T) {
		res, err := listFiles(bg, ws, cline.Texts{}, &ListFilesInput{Path: ".", Recursive: true}, nil)
		got := okText(t, res, err)
		body, note, ok := strings.Cut(got, "\n\n")
		if !ok || note != "(File list truncated. Use list_files on specific subdirectories if you need to explore further.)" {
			t.Fatalf("note = %q, want the 200-entry truncation note", note)
		}
		lines := strings.Split(body, "\n")
		if len(lines) != 200 || lines[0] != "d/" || lines[1] != "d/f000.txt" {
			t.Errorf("got %d lines starting %q, want 200 starting d/, d/f000.txt", len(lines), lines[:2])
		}
	})
	t.Run("small listing has no note", func(t *testing.T) {
		res, err := listFiles(bg, ws, cline.Texts{}, &ListFilesInput{Path: "."}, nil)
		if got := okText(t, res, err); got != "d/" {
			t.Errorf("listing = %q, want %q", got, "d/")
		}
	})
}

func TestListFilesExclusion(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"a.txt": "", ".env": "", "secrets/k.pem": ""})
	res, err := listFiles(bg, ws, cline.Texts{}, &ListFilesInput{Path: ".", Recursive: true}, excludeNames(".env", "secrets"))
	got := okText(t, res, err)
	// Cline shows what .clineignore excludes behind its lock (formatFilesList);
	// a locked directory is not entered.
	want := "🔒 .env\na.txt\n🔒 secrets/"
	if got != want {
		t.Errorf("listing = %q, want %q", got, want)
	}
}

func TestListFilesConfinement(t *testing.T) {
	out := outsideDir(t)
	ws := workspaceWith(t, map[string]string{"a.txt": "", "f.txt": ""})
	if err := os.Symlink(out, filepath.Join(ws.Dir, "escape")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, code string
	}{
		{"parent directory", "..", "outside_workspace"},
		{"absolute path outside", out, "outside_workspace"},
		{"symlink leading outside", "escape", "outside_workspace"},
		{"a file", "f.txt", "not_directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := listFiles(bg, ws, cline.Texts{}, &ListFilesInput{Path: tc.path, Recursive: true}, nil)
			wantToolError(t, err, tc.code)
		})
	}
	t.Run("a missing directory has no files, as in Cline", func(t *testing.T) {
		res, err := listFiles(bg, ws, cline.Texts{}, &ListFilesInput{Path: "nope", Recursive: true}, nil)
		if got := okText(t, res, err); got != "No files found." {
			t.Errorf("listing = %q", got)
		}
	})
	t.Run("symlink is not listed as a directory nor entered", func(t *testing.T) {
		res, err := listFiles(bg, ws, cline.Texts{}, &ListFilesInput{Path: ".", Recursive: true}, nil)
		if got := okText(t, res, err); got != "a.txt\nf.txt" {
			t.Errorf("listing = %q, want %q", got, "a.txt\nf.txt")
		}
	})
}
