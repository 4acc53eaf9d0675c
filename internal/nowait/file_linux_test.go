package nowait

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

var readHow = unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS}

// TestFileCallsAsOrdinary: a cached file opens, fstats, reads from its
// offset to the end and closes as the ordinary calls do.
func TestFileCallsAsOrdinary(t *testing.T) {
	dir := t.TempDir()
	want := []byte("0123456789abcde\n0123456789abcde\n")
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), want, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	os.ReadFile(filepath.Join(dir, "f.txt")) // every component cached
	fd, err := Openat2Cached(int(d.Fd()), "f.txt", &readHow)
	if err != nil {
		t.Fatalf("open of a cached file: %v", err)
	}
	var st, ordinary syscall.Stat_t
	if err := Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Fstat(fd, &ordinary); err != nil || st != ordinary {
		t.Fatalf("Fstat %+v, ordinary %+v (%v)", st, ordinary, err)
	}
	var got []byte
	buf := make([]byte, 10)
	for {
		n, err := Read(fd, buf)
		if err != nil {
			t.Fatalf("read of cached data: %v", err)
		}
		if n == 0 {
			break
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != string(want) {
		t.Fatalf("read %q, want %q", got, want)
	}
	if err := Close(fd); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Fstat(fd, &st); err != syscall.EBADF {
		t.Fatalf("fstat after Close: %v, want EBADF", err)
	}
}

// TestFileCallsLeaveTheRest: what the calls here cannot do is
// ErrWouldWait, for the ordinary call to answer.
func TestFileCallsLeaveTheRest(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("sub", filepath.Join(dir, "link"))
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, path := range []string{"missing.txt", "link/x", "../etc/passwd", "a\x00b"} {
		if fd, err := Openat2Cached(int(d.Fd()), path, &readHow); !errors.Is(err, ErrWouldWait) {
			t.Errorf("open %q: %d, %v; want ErrWouldWait", path, fd, err)
		}
	}
	// A directory cannot be read: the ordinary read gives EISDIR.
	if n, err := Read(int(d.Fd()), make([]byte, 8)); !errors.Is(err, ErrWouldWait) {
		t.Errorf("read of a directory: %d, %v; want ErrWouldWait", n, err)
	}
}
