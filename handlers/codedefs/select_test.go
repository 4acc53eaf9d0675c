package codedefs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// goFunc is a Go file defining one function named name, on line 3.
func goFunc(name string) string {
	return "package p\n\nfunc " + name + "() {}\n"
}

// block is the expected output for a file whose only definition is line.
func block(file, line string) string {
	return file + "\n|----\n│" + line + "\n|----\n\n"
}

func TestListFileCap(t *testing.T) {
	requireCtags(t)
	t.Run("default cap of 50", func(t *testing.T) {
		ws := t.TempDir()
		files := map[string]string{}
		var want strings.Builder
		for i := range 53 {
			name := fmt.Sprintf("f%02d.go", i)
			files[name] = goFunc(fmt.Sprintf("F%02d", i))
			if i < DefaultMaxFiles {
				want.WriteString(block(name, fmt.Sprintf("func F%02d() {}", i)))
			}
		}
		writeFiles(t, ws, files)
		want.WriteString("(Only the first 50 of 53 source files were parsed.)")
		var l Lister
		if got := list(t, &l, ws, ".", nil); got != want.String() {
			t.Errorf("got:\n%s\nwant:\n%s", got, want.String())
		}
	})
	t.Run("excluded files do not count", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"a.go": goFunc("A"), "b.go": goFunc("B"), "c.go": goFunc("C")})
		l := Lister{MaxFiles: 2}
		got := list(t, &l, ws, "", func(rel string, _ bool) bool { return rel == "a.go" })
		want := block("b.go", "func B() {}") + block("c.go", "func C() {}")
		if got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
}

func TestListSelection(t *testing.T) {
	requireCtags(t)
	var l Lister
	t.Run("nested directories are not descended", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"pkg/a.go": goFunc("A"), "pkg/sub/b.go": goFunc("B")})
		got := list(t, &l, ws, "pkg", nil)
		if want := block("a.go", "func A() {}"); got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("excluded files are left out and get root-relative paths", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"pkg/keep.go": goFunc("Keep"), "pkg/secret.go": goFunc("Secret")})
		var seen []string
		got := list(t, &l, ws, "./pkg/", func(rel string, _ bool) bool {
			seen = append(seen, rel)
			return rel == "pkg/secret.go"
		})
		if want := block("keep.go", "func Keep() {}"); got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
		if want := "pkg/keep.go pkg/secret.go"; strings.Join(seen, " ") != want {
			t.Errorf("exclude saw %q, want %q", strings.Join(seen, " "), want)
		}
	})
	t.Run("only source extensions", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"notes.txt": "func A() {}\n", "Makefile": "all:\n", "x.GO": goFunc("Upper")})
		if got, want := list(t, &l, ws, ".", nil), block("x.GO", "func Upper() {}"); got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("no definitions", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"doc.go": "package p\n", "README.md": "# p\n"})
		if got := list(t, &l, ws, ".", nil); got != NoDefinitions {
			t.Errorf("got %q, want %q", got, NoDefinitions)
		}
	})
	t.Run("file names never reach ctags arguments", func(t *testing.T) {
		ws := t.TempDir()
		name := "--output-format=xref.go"
		writeFiles(t, ws, map[string]string{name: goFunc("Odd"), "-f.go": goFunc("Dash")})
		want := block(name, "func Odd() {}") + block("-f.go", "func Dash() {}")
		if got := list(t, &l, ws, ".", nil); got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("files over the size cap get a note", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"big.go": goFunc("Big") + strings.Repeat("// pad\n", 10), "small.go": goFunc("S")})
		small := Lister{MaxFileBytes: 40}
		want := block("small.go", "func S() {}") + "(Not parsed, larger than 40 bytes: big.go)"
		if got := list(t, &small, ws, ".", nil); got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
}

func TestListConfinement(t *testing.T) {
	requireCtags(t)
	var l Lister
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.go": goFunc("Secret")})
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"inside.go": goFunc("Inside")})
	links := map[string]string{
		"abs.go":      filepath.Join(outside, "secret.go"),
		"rel.go":      filepath.Join("..", filepath.Base(outside), "secret.go"),
		"inner.go":    "inside.go",
		"dangling.go": filepath.Join(outside, "missing.go"),
		"outdir":      outside,
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("symlinked and special files are not read", func(t *testing.T) {
		got := list(t, &l, ws, ".", nil)
		if want := block("inside.go", "func Inside() {}"); got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	for _, dir := range []string{"outdir", "../" + filepath.Base(outside), outside, "missing"} {
		t.Run("directory "+dir+" is refused", func(t *testing.T) {
			got, err := l.List(t.Context(), openRoot(t, ws), dir, nil)
			if err == nil {
				t.Fatalf("List(%q) = %q, want an error", dir, got)
			}
		})
	}
}

func TestListErrors(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.go": goFunc("A")})
	t.Run("ctags missing", func(t *testing.T) {
		for _, bin := range []string{filepath.Join(t.TempDir(), "ctags"), "no-such-ctags-binary"} {
			l := Lister{Ctags: bin}
			_, err := l.List(t.Context(), openRoot(t, ws), ".", nil)
			if !errors.Is(err, ErrNoCtags) {
				t.Fatalf("Ctags %q: err = %v, want ErrNoCtags", bin, err)
			}
			if want := "list_code_definition_names needs universal-ctags (apt-get install universal-ctags)"; err.Error() != want {
				t.Errorf("message %q, want %q", err.Error(), want)
			}
		}
	})
	t.Run("ctags failing", func(t *testing.T) {
		l := Lister{Ctags: fakeCtags(t, "echo 'ctags: Unknown option: --output-format' >&2; exit 1")}
		_, err := l.List(t.Context(), openRoot(t, ws), ".", nil)
		if err == nil || !strings.Contains(err.Error(), "Unknown option") {
			t.Errorf("err = %v, want one quoting ctags' stderr", err)
		}
	})
	t.Run("ctags output not JSON", func(t *testing.T) {
		l := Lister{Ctags: fakeCtags(t, "echo 'a.go 1 f'")}
		_, err := l.List(t.Context(), openRoot(t, ws), ".", nil)
		if err == nil || !strings.Contains(err.Error(), "ctags output") {
			t.Errorf("err = %v, want a ctags output error", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		l := Lister{Ctags: fakeCtags(t, "exec sleep 60")}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := l.List(ctx, openRoot(t, ws), ".", nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("timeout kills ctags", func(t *testing.T) {
		l := Lister{Ctags: fakeCtags(t, "exec sleep 60"), Timeout: 50 * time.Millisecond}
		_, err := l.List(t.Context(), openRoot(t, ws), ".", nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
	})
}

// fakeCtags writes a shell script standing in for ctags.
func fakeCtags(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ctags")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
