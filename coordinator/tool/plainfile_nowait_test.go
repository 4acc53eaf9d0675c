//go:build linux

package tool

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenPlainNowait: on a local file system OpenPlain opens, stats,
// reads and closes without telling the scheduler (internal/nowait), and
// gives what the ordinary calls give: the same bytes, the same fstat,
// the same errors for what it leaves to them.
func TestOpenPlainNowait(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := []byte("0123456789abcde\n0123456789abcde\n")
	if err := os.WriteFile(filepath.Join(dir, "sub/a.txt"), want, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if !ws.nowait {
		t.Skipf("%s is not on a local file system", dir)
	}
	ordinary := &Workspace{Dir: ws.Dir, Root: ws.Root, dir: ws.dir, dirFd: ws.dirFd}

	read := func(w *Workspace) (*PlainFile, []byte, syscall.Stat_t) {
		t.Helper()
		f, err := w.OpenPlain("sub/a.txt")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		st := f.info.st
		fd := f.fd
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := syscall.Seek(fd, 0, io.SeekCurrent); err != syscall.EBADF {
			t.Fatalf("the descriptor is still open after Close: %v", err)
		}
		return f, got, st
	}
	fast, gotFast, stFast := read(ws)
	slow, gotSlow, stSlow := read(ordinary)
	if !fast.nowait || slow.nowait {
		t.Fatalf("nowait opens: %v on the local workspace, %v without nowait", fast.nowait, slow.nowait)
	}
	if string(gotFast) != string(want) || string(gotSlow) != string(want) {
		t.Fatalf("read %q and %q, want %q", gotFast, gotSlow, want)
	}
	stFast.Atim = stSlow.Atim // the first read may set the access time
	if stFast != stSlow {
		t.Fatalf("fstat %+v, ordinary %+v", stFast, stSlow)
	}
	for _, rel := range []string{"missing.txt", "link/a.txt", "sub/a.txt/x"} {
		_, errFast := ws.OpenPlain(rel)
		_, errSlow := ordinary.OpenPlain(rel)
		if errFast == nil || !errors.Is(errFast, errSlow) {
			t.Errorf("OpenPlain(%q): %v, ordinary %v", rel, errFast, errSlow)
		}
	}
}
