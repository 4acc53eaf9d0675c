package outfiles

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func save(t *testing.T, a *Area, sid string, done <-chan struct{}, rel, content string) string {
	t.Helper()
	path, n, err := a.Save(sid, done, rel, strings.NewReader(content))
	if err != nil {
		t.Fatalf("Save(%s, %s): %v", sid, rel, err)
	}
	if n != int64(len(content)) {
		t.Fatalf("Save wrote %d bytes, want %d", n, len(content))
	}
	return path
}

func read(t *testing.T, a *Area, sid, path string) (string, error) {
	t.Helper()
	f, _, err := a.Open(sid, path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

func TestSessionReadsOnlyItsOwnFiles(t *testing.T) {
	a := New(t.TempDir(), Limits{})
	path := save(t, a, "s1", nil, "tool-results/b1.txt", "one\ntwo\n")
	if got, err := read(t, a, "s1", path); err != nil || got != "one\ntwo\n" {
		t.Fatalf("own file: %q, %v", got, err)
	}
	save(t, a, "s2", nil, "tool-results/b2.txt", "other")
	if _, err := read(t, a, "s2", path); !errors.Is(err, ErrNotOutput) {
		t.Errorf("another session's file: err %v, want ErrNotOutput", err)
	}
	for _, p := range []string{
		filepath.Join(a.Dir("s1"), "tool-results", "..", "..", "s2", "tool-results", "b2.txt"),
		filepath.Join(a.Dir("s1"), "other.txt"),
		filepath.Join(a.Dir("s1"), "tool-results", ".tmp-b1.txt"),
		"tool-results/b1.txt",
		"/etc/passwd",
	} {
		if _, err := read(t, a, "s1", p); !errors.Is(err, ErrNotOutput) {
			t.Errorf("%s: err %v, want ErrNotOutput", p, err)
		}
	}
	if _, err := read(t, a, "s1", filepath.Join(a.Dir("s1"), "tool-results", "bnone.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err %v, want not exist", err)
	}
}

func TestSymlinkRefused(t *testing.T) {
	a := New(t.TempDir(), Limits{})
	save(t, a, "s1", nil, "tool-results/b1.txt", "x")
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(a.Dir("s1"), "tool-results", "blink.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if got, err := read(t, a, "s1", link); !errors.Is(err, ErrNotOutput) {
		t.Errorf("symlink: read %q, err %v; want ErrNotOutput", got, err)
	}
	// A symlinked directory leads out too.
	if err := os.Symlink(filepath.Dir(secret), filepath.Join(a.Dir("s1"), "tasks")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(secret, secret+".output"); err != nil {
		t.Fatal(err)
	}
	if got, err := read(t, a, "s1", filepath.Join(a.Dir("s1"), "tasks", "secret.output")); err == nil {
		t.Errorf("through a symlinked directory: read %q", got)
	}
}

func TestFilesGoWithTheSession(t *testing.T) {
	a := New(t.TempDir(), Limits{})
	done := make(chan struct{})
	path := save(t, a, "s1", done, "tasks/b1.output", "out")
	close(done)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(a.Dir("s1")); errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session's directory is still there 10 s after the session ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := read(t, a, "s1", path); err == nil {
		t.Error("a removed session's file still reads")
	}
}

func TestBounds(t *testing.T) {
	a := New(t.TempDir(), Limits{File: 4, Session: 8, Files: 3, Total: 13})
	p1 := save(t, a, "s1", nil, "tool-results/b1.txt", "1111")
	if _, n, _ := a.Save("s1", nil, "tool-results/b2.txt", strings.NewReader("22222222")); n != 4 {
		t.Errorf("a file past Limits.File holds %d bytes, want 4", n)
	}
	save(t, a, "s1", nil, "tool-results/b3.txt", "3333") // 12 bytes > 8: b1 goes
	if _, err := os.Stat(p1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the oldest file is kept past the session's bytes: %v", err)
	}
	save(t, a, "s2", nil, "tool-results/c1.txt", "ab")
	if _, _, err := a.Save("s3", nil, "tool-results/d1.txt", strings.NewReader("abcd")); !errors.Is(err, ErrFull) {
		t.Errorf("past the total: err %v, want ErrFull", err)
	}
	if _, _, err := a.Save("s1", nil, "../escape.txt", strings.NewReader("x")); !errors.Is(err, ErrNotOutput) {
		t.Errorf("a bad name: err %v, want ErrNotOutput", err)
	}
	if err := a.Remove("s1"); err != nil {
		t.Fatal(err)
	}
	save(t, a, "s3", nil, "tool-results/d1.txt", "abcd") // s1's bytes were given back
}

func TestOddSessionIDsStayInTheArea(t *testing.T) {
	dir := t.TempDir()
	a := New(dir, Limits{})
	for _, sid := range []string{"../x", "a/b", "..", strings.Repeat("z", 200)} {
		if d := a.Dir(sid); filepath.Dir(d) != dir {
			t.Errorf("Dir(%q) = %s, not directly under %s", sid, d, dir)
		}
	}
}
