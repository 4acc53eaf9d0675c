package helper

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenNoFollowNeverResolvesALink checks the descriptors grants are
// made from: a link on the way fails the open, a final link is opened as
// itself (and addFD grants nothing on it), a plain path opens.
func TestOpenNoFollowNeverResolvesALink(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target")
	if err := os.MkdirAll(filepath.Join(target, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if fd, err := openNoFollow(filepath.Join(link, "sub"), unix.O_PATH); err == nil {
		_ = unix.Close(fd)
		t.Errorf("a path through a link was opened")
	} else if !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENOTDIR) {
		t.Errorf("open through a link: %v, want ELOOP or ENOTDIR", err)
	}
	fd, err := openNoFollow(link, unix.O_PATH)
	if err != nil {
		t.Fatalf("open the link itself: %v", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		t.Errorf("the link was followed: mode %o (%v)", st.Mode, err)
	}
	_ = unix.Close(fd)
	for _, p := range []string{"/", filepath.Join(target, "sub")} {
		fd, err := openNoFollow(p, unix.O_RDONLY|unix.O_DIRECTORY)
		if err != nil {
			t.Errorf("open %s: %v", p, err)
			continue
		}
		_ = unix.Close(fd)
	}
}

// TestOutermostHiddenPaths: a hidden path inside another hidden one is
// left out, so its parents' entries are not granted one by one.
func TestOutermostHiddenPaths(t *testing.T) {
	got := outermost("/", []string{"/tmp/runs", "/home/u/.ssh", "/tmp", "/tmp/runs/x", "/", "/tmp"})
	want := []string{"/home/u/.ssh", "/tmp"}
	if !slices.Equal(got, want) {
		t.Errorf("outermost = %q, want %q", got, want)
	}
	if got := outermost("/tmp/ws", []string{"/tmp", "/tmp/ws/.env"}); !slices.Equal(got, []string{"/tmp/ws/.env"}) {
		t.Errorf("below a writable root: %q", got)
	}
}
