package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

func TestWriteContentAndMode(t *testing.T) {
	tests := []struct {
		name     string
		existing string      // prior content; "" means no file
		mode     os.FileMode // prior mode
		perm     os.FileMode // defaultPerm passed to Write
		data     string
		wantMode os.FileMode
	}{
		{name: "new file gets default perm", perm: 0o600, data: "hello", wantMode: 0o600},
		{name: "existing mode kept over default", existing: "old", mode: 0o640, perm: 0o600, data: "new", wantMode: 0o640},
		{name: "existing wide mode kept despite umask", existing: "old", mode: 0o777, perm: 0o600, data: "x", wantMode: 0o777},
		{name: "existing read-only file replaced, mode kept", existing: "old", mode: 0o400, perm: 0o644, data: "y", wantMode: 0o400},
		{name: "shorter content leaves no old tail", existing: "a long old content", mode: 0o644, perm: 0o644, data: "short", wantMode: 0o644},
		{name: "empty data", existing: "old", mode: 0o644, perm: 0o644, data: "", wantMode: 0o644},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, ws, _ := workspace(t)
			path := filepath.Join(ws, "f.txt")
			if tc.existing != "" {
				writeFile(t, path, tc.existing, tc.mode)
			}
			if err := Write(root, "f.txt", []byte(tc.data), tc.perm); err != nil {
				t.Fatalf("Write: %v", err)
			}
			if got := readFile(t, path); got != tc.data {
				t.Errorf("content: got %q, want %q", got, tc.data)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.wantMode {
				t.Errorf("mode: got %v, want %v", got, tc.wantMode)
			}
			if got := listDir(t, ws); !slices.Equal(got, []string{"f.txt"}) {
				t.Errorf("directory: got %v, want only f.txt", got)
			}
		})
	}
}

func TestWriteNames(t *testing.T) {
	tests := []struct {
		name, arg, want string // want: path written, relative to the workspace
	}{
		{name: "parent directories created", arg: "a/b/c/f.txt", want: "a/b/c/f.txt"},
		{name: "OS separators", arg: filepath.Join("x", "y.txt"), want: "x/y.txt"},
		{name: "inner dot-dot that stays inside", arg: "a/../b.txt", want: "b.txt"},
		{name: "odd but legal names", arg: "..foo", want: "..foo"},
		{name: "trailing dots", arg: "a..", want: "a.."},
		{name: "three dots", arg: "...", want: "..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, ws, _ := workspace(t)
			if err := Write(root, tc.arg, []byte("data"), 0o644); err != nil {
				t.Fatalf("Write(%q): %v", tc.arg, err)
			}
			if got := readFile(t, filepath.Join(ws, filepath.FromSlash(tc.want))); got != "data" {
				t.Errorf("content at %s: got %q, want %q", tc.want, got, "data")
			}
		})
	}
}

func TestWriteRefusesEscapes(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, ws, out string)
		arg   string
		want  error // a sentinel the error must wrap; nil: any error
	}{
		{name: "dot-dot", arg: "../x", want: ErrEscapes},
		{name: "nested dot-dot", arg: "sub/../../x", want: ErrEscapes},
		{name: "absolute outside", arg: "/tmp/toolgate-atomicfile-x", want: ErrEscapes},
		{name: "sibling prefix", arg: "../ws_evil/x", want: ErrEscapes},
		{name: "empty name", arg: "", want: fs.ErrInvalid},
		{name: "trailing slash", arg: "dir/", want: fs.ErrInvalid},
		{name: "NUL byte", arg: "a\x00b"},
		{name: "relative symlink to an outside file", arg: "link",
			setup: func(t *testing.T, ws, out string) { symlink(t, "../outside/secret", filepath.Join(ws, "link")) }},
		{name: "absolute symlink to an outside file", arg: "link", want: ErrEscapes,
			setup: func(t *testing.T, ws, out string) {
				symlink(t, filepath.Join(out, "secret"), filepath.Join(ws, "link"))
			}},
		{name: "dangling symlink pointing outside", arg: "link",
			setup: func(t *testing.T, ws, out string) { symlink(t, "../outside/new", filepath.Join(ws, "link")) }},
		{name: "chained symlinks leading outside", arg: "a",
			setup: func(t *testing.T, ws, out string) {
				symlink(t, "b", filepath.Join(ws, "a"))
				symlink(t, "sub/c", filepath.Join(ws, "b"))
				symlink(t, "../../outside/secret", filepath.Join(ws, "sub", "c"))
			}},
		{name: "directory symlink leading outside", arg: "dirlink/new",
			setup: func(t *testing.T, ws, out string) { symlink(t, "../outside", filepath.Join(ws, "dirlink")) }},
		{name: "symlink loop", arg: "loop",
			setup: func(t *testing.T, ws, out string) { symlink(t, "loop", filepath.Join(ws, "loop")) }},
		{name: "target is a directory", arg: "d", want: ErrNotRegular,
			setup: func(t *testing.T, ws, out string) { os.Mkdir(filepath.Join(ws, "d"), 0o755) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, ws, out := workspace(t)
			writeFile(t, filepath.Join(out, "secret"), "secret", 0o644)
			if tc.setup != nil {
				tc.setup(t, ws, out)
			}
			beforeWS, beforeOut := listTree(t, ws), listTree(t, filepath.Dir(ws))
			err := Write(root, tc.arg, []byte("pwned"), 0o644)
			if err == nil {
				t.Fatalf("Write(%q) succeeded, want an error", tc.arg)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want it to wrap %v", err, tc.want)
			}
			if got := readFile(t, filepath.Join(out, "secret")); got != "secret" {
				t.Errorf("outside file: got %q, want it unchanged", got)
			}
			if got := listTree(t, filepath.Dir(ws)); !slices.Equal(got, beforeOut) {
				t.Errorf("files around the workspace: got %v, want %v", got, beforeOut)
			}
			if got := listTree(t, ws); !slices.Equal(got, beforeWS) {
				t.Errorf("workspace: got %v, want unchanged %v", got, beforeWS)
			}
		})
	}
}

func TestWriteAbsolutePathInsideRootRefused(t *testing.T) {
	root, ws, _ := workspace(t)
	err := Write(root, filepath.Join(ws, "f.txt"), []byte("x"), 0o644)
	if !errors.Is(err, ErrEscapes) {
		t.Fatalf("error %v, want ErrEscapes: callers must pass workspace-relative names", err)
	}
}

func TestWriteThroughInsideSymlink(t *testing.T) {
	root, ws, _ := workspace(t)
	writeFile(t, filepath.Join(ws, "real", "f.txt"), "old", 0o640)
	symlink(t, "real/f.txt", filepath.Join(ws, "link"))
	symlink(t, "../real/f.txt", filepath.Join(ws, "sub", "link2"))
	for _, name := range []string{"link", "sub/link2"} {
		t.Run(name, func(t *testing.T) {
			if err := Write(root, name, []byte("via "+name), 0o600); err != nil {
				t.Fatalf("Write: %v", err)
			}
			if got := readFile(t, filepath.Join(ws, "real", "f.txt")); got != "via "+name {
				t.Errorf("target content: got %q, want %q", got, "via "+name)
			}
			fi, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(name)))
			if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("link %s: got mode %v err %v, want it still a symlink", name, fi.Mode(), err)
			}
			if fi, _ := os.Stat(filepath.Join(ws, "real", "f.txt")); fi.Mode().Perm() != 0o640 {
				t.Errorf("target mode: got %v, want 0640", fi.Mode().Perm())
			}
		})
	}
}

// A hard link to an outside file is replaced, never written through: the
// outside file keeps its content and the workspace name gets a new inode.
func TestWriteHardLinkReplacedNotWrittenThrough(t *testing.T) {
	root, ws, out := workspace(t)
	secret := filepath.Join(out, "secret")
	writeFile(t, secret, "secret", 0o644)
	if err := os.Link(secret, filepath.Join(ws, "hl")); err != nil {
		t.Skipf("hard links unsupported here: %v", err)
	}
	if err := Write(root, "hl", []byte("new"), 0o644); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if got := readFile(t, secret); got != "secret" {
		t.Errorf("outside file: got %q, want %q", got, "secret")
	}
	if got := readFile(t, filepath.Join(ws, "hl")); got != "new" {
		t.Errorf("workspace file: got %q, want %q", got, "new")
	}
	fi, _ := os.Stat(secret)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink != 1 {
		t.Errorf("outside file nlink: got %d, want 1", st.Nlink)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
