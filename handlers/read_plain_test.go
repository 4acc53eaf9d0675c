package handlers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// plainCases lays out the paths whose reading TestReadPlainAsRoot
// compares: files reached through no symlink, links that stay inside
// the workspace and links that leave it, .., a hard link, a FIFO, a
// directory and a missing file. It returns the workspace and a Root-only view of it.
func plainCases(t *testing.T) (*tool.Workspace, *tool.Workspace) {
	t.Helper()
	base := t.TempDir()
	dir, outside := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(dir, "sub/deeper"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{
		filepath.Join(dir, "top.txt"):              "top\n",
		filepath.Join(dir, "sub/deeper/nested.go"): "package deeper\n\nfunc f() {}\n",
		filepath.Join(dir, ".env"):                 "API_KEY=sk-live-4f2a\n",
		filepath.Join(outside, "secret.txt"):       "TOP SECRET\n",
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"link_in.txt":      "sub/deeper/nested.go",
		"sub/link_up.txt":  "../top.txt",
		"link_dir":         "sub",
		"link_out.txt":     "../out/secret.txt",
		"link_abs.txt":     filepath.Join(outside, "secret.txt"),
		"link_abs_in.txt":  filepath.Join(dir, "top.txt"),
		"link_env.txt":     ".env",
		"link_dangling":    "nothing_here",
		"link_loop":        "link_loop",
		"link_out_dir":     "../out",
		"sub/deeper/abs":   "/",
		"link_to_proc_fd0": "/proc/self/fd/0",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	// A second name of an ignored file, which no rule names.
	if err := os.Link(filepath.Join(dir, ".env"), filepath.Join(dir, "hard_env.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	// A workspace made without OpenWorkspace has no directory of its
	// own to open beneath: OpenPlain declines, every open goes through
	// Root, as before OpenPlain.
	return ws, &tool.Workspace{Dir: ws.Dir, Root: ws.Root}
}

// TestReadPlainAsRoot reads each path of plainCases with read_file and
// Read (readLines), with OpenPlain and through os.Root alone, with and
// without ignore rules: the answers, refusals and their codes and words
// must be the same both ways.
func TestReadPlainAsRoot(t *testing.T) {
	ws, rootOnly := plainCases(t)
	paths := []string{
		"top.txt", "sub/deeper/nested.go", "./sub/../top.txt", ws.Dir + "/top.txt", "link_in.txt", "sub/link_up.txt",
		"link_dir/deeper/nested.go", "link_abs_in.txt", "link_out.txt", "link_abs.txt", "link_out_dir/secret.txt",
		"sub/deeper/abs/etc/passwd", "../out/secret.txt", "sub/../../out/secret.txt", "link_dangling", "link_loop",
		"link_to_proc_fd0", "pipe", "sub", "sub/deeper", ".", "missing.txt", "sub/missing/x.txt", "top.txt/x",
		".env", "link_env.txt", "hard_env.txt",
	}
	rules := map[string]*ignore.Matcher{
		"no rules":      nil,
		".clineignore":  ignore.NewMatcher(ignore.ParseRules(".clineignore", "", []byte(".env\n"))),
		"a path's rule": ignore.NewMatcher(ignore.ParseRules("extra", "", []byte("sub/deeper/\n"))),
	}
	tools := map[string]func(*tool.Call, string) (tool.Result, error){
		"read_file": func(call *tool.Call, p string) (tool.Result, error) {
			return readFile(t.Context(), call, &ReadFileInput{Path: p})
		},
		"Read": func(call *tool.Call, p string) (tool.Result, error) {
			return readLines(t.Context(), call, &ReadLinesInput{Path: p})
		},
	}
	for name, run := range tools {
		for rname, m := range rules {
			for _, p := range paths {
				t.Run(name+"/"+rname+"/"+p, func(t *testing.T) {
					plainAsRoot(t, ws, rootOnly, m, p, rname, run)
				})
			}
		}
	}
}

// plainAsRoot reads p with run in ws and in rootOnly, under the ignore
// rules m (named rname), and requires the same answer both ways.
func plainAsRoot(t *testing.T, ws, rootOnly *tool.Workspace, m *ignore.Matcher, p, rname string, run func(*tool.Call, string) (tool.Result, error)) {
	t.Helper()
	read := func(w *tool.Workspace) (string, error) {
		call := editCall(w, "toolu_plain")
		call.Attach(tool.Runtime{Ignored: m})
		res, err := run(call, p)
		if err != nil {
			return "", err
		}
		return text(api.ToolResult{Content: res.Content}), nil
	}
	got, gotErr := read(ws)
	want, wantErr := read(rootOnly)
	if got != want || errString(gotErr) != errString(wantErr) {
		t.Errorf("read(%q) = %q, %v; through os.Root alone %q, %v", p, got, gotErr, want, wantErr)
	}
	if strings.Contains(got, "SECRET") || strings.Contains(got, "sk-live") && rname == ".clineignore" ||
		strings.Contains(got, "package deeper") && rname == "a path's rule" {
		t.Errorf("read(%q) read a file it must not: %q", p, got)
	}
}

func errString(err error) string {
	var te *tool.ToolError
	if errors.As(err, &te) {
		return string(te.Code) + ": " + te.Message
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// TestOpenReadableTakesPlainPath: a path through no symlink is opened by
// OpenPlain, a bare descriptor; one through a symlink, kept inside the
// workspace, by os.Root. A Root-only workspace opens both by os.Root.
func TestOpenReadableTakesPlainPath(t *testing.T) {
	ws, rootOnly := plainCases(t)
	for _, c := range []struct {
		ws        *tool.Workspace
		rel       string
		wantPlain bool
	}{
		{ws, "top.txt", true},
		{ws, "sub/deeper/nested.go", true},
		{ws, "link_in.txt", false},
		{ws, "link_dir/deeper/nested.go", false},
		{rootOnly, "top.txt", false},
	} {
		f, st, err := openReadable(editCall(c.ws, "toolu_plain"), c.rel)
		if err != nil {
			t.Fatalf("openReadable(%q): %v", c.rel, err)
		}
		_, plain := f.(*tool.PlainFile)
		if plain != c.wantPlain || st.Size() == 0 {
			t.Errorf("openReadable(%q) opened %T (size %d), want plain %v", c.rel, f, st.Size(), c.wantPlain)
		}
		if err := f.Close(); err != nil {
			t.Errorf("close %q: %v", c.rel, err)
		}
	}
}
