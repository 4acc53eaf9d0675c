package getdents

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestModesMatchOS lists a directory holding a file, a directory, a
// symlink, a FIFO and a socket and checks every name and type against
// os.ReadDir's.
func TestModesMatchOS(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sock)
	if err := unix.Bind(sock, &unix.SockaddrUnix{Name: filepath.Join(dir, "sock")}); err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		want[e.Name()] = e.Type()
	}
	got := list(t, dir)
	if len(got) != len(want) || len(got) != 5 {
		t.Fatalf("listed %v, want %v", got, want)
	}
	for name, typ := range want {
		if g, ok := got[name]; !ok || g != typ {
			t.Errorf("%s: type %v (listed %v), want %v", name, g, ok, typ)
		}
	}
}

// TestModeUnknownStats checks that a DT_UNKNOWN record is typed by
// fstatat, and one that cannot be stat'ed is irregular.
func TestModeUnknownStats(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if m := Mode(fd, unix.DT_UNKNOWN, "sub"); m != fs.ModeDir {
		t.Errorf("DT_UNKNOWN directory: %v", m)
	}
	if m := Mode(fd, unix.DT_UNKNOWN, "gone"); m != fs.ModeIrregular {
		t.Errorf("DT_UNKNOWN missing entry: %v", m)
	}
}

// list is the names and types getdents gives for dir.
func list(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	got := map[string]fs.FileMode{}
	buf := make([]byte, 64) // small: several reads, records split across them
	for {
		n, err := Read(fd, buf)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return got
		}
		Records(buf[:n], func(name []byte, dtype byte) {
			got[string(name)] = Mode(fd, dtype, string(name))
		})
	}
}
