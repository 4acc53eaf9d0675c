package handlers

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/dialect/cline"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// grepTree is a small repository: a .gitignore'd file, a hidden file and
// a binary file that ripgrep and Grep both skip.
var grepTree = map[string]string{
	".gitignore":     "ignored.txt\n",
	"ignored.txt":    "needle\n",
	".hidden.txt":    "needle\n",
	"bin.dat":        "needle\x00\x01",
	"a.go":           "package a\n\n// Needle finds.\nfunc Needle() {}\n\nvar x = \"needle\"\n",
	"src/b.ts":       "const needle = 1;\nconst hay = 2;\n\n\n\nexport { needle };\n",
	"src/c.py":       "def f():\n    return 'NEEDLE'\n",
	"docs/notes.md":  "no match here\n",
	"src/deep/d.txt": "struct {\n  field int\n}\n",
}

// TestGrepAgainstRipgrep runs Claude Code's Grep modes (its tool prompt:
// tools/GrepTool/prompt.ts, "A powerful search tool built on ripgrep")
// and the same search with rg itself, which must agree.
func TestGrepAgainstRipgrep(t *testing.T) {
	requireTool(t, "rg", "ripgrep")
	ws := workspaceWith(t, grepTree)
	if err := exec.Command("git", "-C", ws.Dir, "init", "-q").Run(); err != nil {
		t.Skip("git is needed for .gitignore to count, as in a repository")
	}
	rg := func(args ...string) []string {
		cmd := exec.Command("rg", append([]string{"--no-heading", "--with-filename", "--no-config"}, args...)...)
		cmd.Dir = ws.Dir
		out, _ := cmd.Output()
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			switch l {
			case "":
			case "--":
				lines = append(lines, l)
			default:
				lines = append(lines, strings.TrimPrefix(l, "./"))
			}
		}
		return lines
	}
	grep := func(in GrepInput) []string {
		res, err := grepFiles(context.Background(), editCall(ws, "t"), &in)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(resultText(res), "\n")
	}
	sorted := func(xs []string) []string { xs = slices.Clone(xs); sort.Strings(xs); return xs }
	t.Run("files_with_matches", func(t *testing.T) {
		got := grep(GrepInput{Pattern: "needle", IgnoreCase: true})
		if want := sorted(rg("-l", "-i", "needle")); !slices.Equal(sorted(got[1:]), want) || got[0] != "Found 3 files" {
			t.Errorf("got %q\nrg  %q", got, want)
		}
	})
	t.Run("content with context", func(t *testing.T) {
		got := grep(GrepInput{Pattern: "needle", Path: "src", OutputMode: "content", Context: 1})
		if want := rg("-n", "-C", "1", "needle", "src"); !slices.Equal(got, want) {
			t.Errorf("got %q\nrg  %q", got, want)
		}
	})
	t.Run("content, glob and -A", func(t *testing.T) {
		got := grep(GrepInput{Pattern: "Needle", OutputMode: "content", Glob: "*.go", After: 1})
		if want := rg("-n", "-A", "1", "--glob", "*.go", "Needle"); !slices.Equal(got, want) {
			t.Errorf("got %q\nrg  %q", got, want)
		}
	})
	t.Run("count and type", func(t *testing.T) {
		got := grep(GrepInput{Pattern: "needle", OutputMode: "count", Type: "ts"})
		if want := rg("-c", "--type", "ts", "needle"); !slices.Equal(got[:len(want)], want) || got[len(got)-1] != "Found 2 total occurrences across 1 file." {
			t.Errorf("got %q\nrg  %q", got, want)
		}
	})
	t.Run("multiline", func(t *testing.T) {
		got := grep(GrepInput{Pattern: `struct \{[\s\S]*?field`, OutputMode: "content", Multiline: true})
		if want := rg("-n", "-U", "--multiline-dotall", `struct \{[\s\S]*?field`); !slices.Equal(got, want) {
			t.Errorf("got %q\nrg  %q", got, want)
		}
	})
	t.Run("head_limit says it cut", func(t *testing.T) {
		got := grep(GrepInput{Pattern: "needle", OutputMode: "content", HeadLimit: 2, IgnoreCase: true, Path: "a.go"})
		if want := []string{"3:// Needle finds.", "4:func Needle() {}", "", "[Showing results with pagination = limit: 2]"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("offset and head_limit", func(t *testing.T) {
		got := grep(GrepInput{Pattern: "needle", IgnoreCase: true, Offset: 1, HeadLimit: 1})
		if len(got) != 2 || got[0] != "Found 1 file limit: 1, offset: 1" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("-o on a named file", func(t *testing.T) {
		got := grep(GrepInput{Pattern: "ne+dle", OutputMode: "content", Only: true, Path: "src/b.ts"})
		if want := rg("-n", "-o", "ne+dle", "src/b.ts"); !slices.Equal(got, []string{"1:needle", "6:needle"}) || len(want) != 2 {
			t.Errorf("got %q, rg (with file names) %q", got, want)
		}
	})
	t.Run("context lines of an absolute path keep it", func(t *testing.T) {
		got := grep(GrepInput{Pattern: "hay", OutputMode: "content", Path: filepath.Join(ws.Dir, "src"), Before: 1})
		if want := []string{filepath.Join(ws.Dir, "src/b.ts") + "-1-const needle = 1;", "src/b.ts:2:const hay = 2;"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("no line numbers", func(t *testing.T) {
		no := false
		got := grep(GrepInput{Pattern: "hay", OutputMode: "content", LineNumber: &no})
		if want := []string{"src/b.ts:const hay = 2;"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("unknown type", func(t *testing.T) {
		_, err := grepFiles(context.Background(), editCall(ws, "t"), &GrepInput{Pattern: "x", Type: "cobol"})
		wantToolError(t, err, "invalid_type")
	})
}

// TestGlobOldestFirst follows Claude Code 2.1's Glob as the conformance
// harness records it: paths relative to the workspace, oldest first, a
// pattern without a slash matching names at any depth, ignored and hidden
// files listed.
func TestGlobOldestFirst(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"a.go": "", "sub/b.go": "", "sub/c.txt": "", "top.json": "", "sub/x.json": "",
		".gitignore": "ignored.go\n", "ignored.go": "", ".hidden.go": ""})
	old := time.Now().Add(-time.Hour)
	for i, name := range []string{"a.go", "sub/b.go", "sub/c.txt", "sub/x.json", "top.json", "ignored.go", ".hidden.go"} {
		ts := old.Add(time.Duration(-i) * time.Minute)
		if err := os.Chtimes(filepath.Join(ws.Dir, name), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		in   GlobFilesInput
		want string
	}{
		{GlobFilesInput{Pattern: "**/*.go"}, ".hidden.go\nignored.go\nsub/b.go\na.go"},
		{GlobFilesInput{Pattern: "*.json"}, "top.json\nsub/x.json"},
		{GlobFilesInput{Pattern: "*.go", Path: "sub"}, "sub/b.go"},
		{GlobFilesInput{Pattern: "**/*.{txt,json}", Path: filepath.Join(ws.Dir, "sub")}, "sub/x.json\nsub/c.txt"},
		{GlobFilesInput{Pattern: "*.rs"}, "No files found"},
	} {
		t.Run(tc.in.Pattern, func(t *testing.T) {
			res, err := globFiles(context.Background(), editCall(ws, "t"), &tc.in)
			if got := okText(t, res, err); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestListTree follows Claude Code's LS: a tree under the absolute path,
// with ignore globs.
func TestListTree(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"a.txt": "", "a/b.go": "", "a/c.md": "", "z.md": ""})
	res, err := listTree(context.Background(), editCall(ws, "t"), &ListTreeInput{Path: ws.Dir, Ignore: []string{"*.md"}})
	want := "- " + ws.Dir + "/\n  - a/\n    - b.go\n  - a.txt"
	if got := okText(t, res, err); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestGrepJudgesWhatItOpens: a file Claude Code's Grep chose by its walk,
// swapped for a link into an ignored directory before Grep opens it
// (afterGrepSelection makes the moment certain), is left out and counted
// like any ignored entry; its content never shows.
func TestGrepJudgesWhatItOpens(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handles are named on Linux only")
	}
	ws := workspaceWith(t, map[string]string{".clineignore": "private/\n", "notes.txt": "needle public\n",
		"docs/a.txt": "needle docs\n", "private/secret.txt": "needle s3cret\n", "private/a.txt": "needle s3cret\n"})
	cfg := coordinator.DefaultConfig()
	cfg.AllowAll = true
	c := coordinator.New(coordinator.Options{Config: cfg, Workspace: ws, Tools: Default(), Dialects: []tool.Dialect{cline.Dialect(), testDialect(api.DialectClaudeCode, grepTool())}})
	t.Cleanup(c.Close)
	sess, err := c.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	sess.Update(api.UpdateSessionRequest{Dialect: api.DialectClaudeCode})
	swap := func(name, target string) {
		p := filepath.Join(ws.Dir, name)
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	afterGrepSelection = func() { swap("notes.txt", "private/secret.txt"); swap("docs", "private") }
	t.Cleanup(func() { afterGrepSelection = nil })
	res, rec := c.Execute(t.Context(), sess, "", api.ToolUse{Type: api.TypeToolUse, ID: "toolu_grep_swap", Name: "Grep",
		Input: []byte(`{"pattern":"needle","output_mode":"content"}`)})
	got := text(res)
	if rec.Status != api.StatusSucceeded || strings.Contains(got, "s3cret") {
		t.Errorf("Grep = %s %q, want the swapped files left out", rec.Status, got)
	}
	if !strings.Contains(got, "3 entries were left out because .clineignore excludes them") {
		t.Errorf("Grep = %q, want private/ and the two swapped files counted as left out", got)
	}
}
