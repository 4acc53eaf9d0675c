package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/toolgate/toolgate/internal/testwait"
	"golang.org/x/sys/unix"
)

// watchSetup is a workspace of the files given, every directory stamped
// as a walk reading it would (an hour old, older than StampRacy), plus
// the extra stamps asked for (files, absent paths).
type watchSetup struct {
	t      *testing.T
	dir    string
	ws     *Workspace
	stamps []Stamp
}

func newWatchSetup(t *testing.T, files ...string) *watchSetup {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		full := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &watchSetup{t: t, dir: dir, ws: ws}
}

// stampDirs stamps every directory below (and with) root, parents first.
func (s *watchSetup) stampDirs(root string) {
	s.t.Helper()
	err := fs.WalkDir(s.ws.Root.FS(), root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			s.stamp(p)
		}
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// stamp stamps one path (absent or not).
func (s *watchSetup) stamp(p string) {
	s.t.Helper()
	st, err := s.ws.StampPath(p)
	if err != nil {
		s.t.Fatal(err)
	}
	s.stamps = append(s.stamps, st)
}

func (s *watchSetup) path(rel string) string { return filepath.Join(s.dir, filepath.FromSlash(rel)) }

// watch arms a watch over the stamps and checks it is watched, not
// polled, and that it stands.
func (s *watchSetup) watch() *StampWatch {
	s.t.Helper()
	sw, err := s.ws.WatchStamps(s.stamps)
	s.t.Cleanup(sw.Close)
	if errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENOSPC) {
		s.t.Skipf("this user's inotify instances or watches are used up: %v", err)
	}
	if err != nil || sw.fd < 0 {
		s.t.Fatalf("stamps polled, not watched: %v", err)
	}
	for range 3 {
		if !sw.Stand() {
			s.t.Fatal("the watch reported a change with nothing changed")
		}
	}
	return sw
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestStampWatchSeesChanges: each change to what a walk read, made after
// the watch was armed, is reported at the next check with no wait (the
// kernel queues the event in the system call that makes the change),
// and the stamps, polled, agree that it changed.
func TestStampWatchSeesChanges(t *testing.T) {
	cases := []struct {
		name   string
		change func(s *watchSetup)
	}{
		{"file created", func(s *watchSetup) { must(s.t, os.WriteFile(s.path("a/new"), nil, 0o644)) }},
		{"file removed", func(s *watchSetup) { must(s.t, os.Remove(s.path("a/b/x"))) }},
		{"file renamed", func(s *watchSetup) { must(s.t, os.Rename(s.path("a/b/x"), s.path("a/b/y"))) }},
		{"directory created", func(s *watchSetup) { must(s.t, os.Mkdir(s.path("a/b/c"), 0o755)) }},
		{"directory renamed", func(s *watchSetup) { must(s.t, os.Rename(s.path("a/b"), s.path("a/b2"))) }},
		{"directory removed", func(s *watchSetup) { must(s.t, os.RemoveAll(s.path("e"))) }},
		{"directory renamed over", func(s *watchSetup) {
			must(s.t, os.Mkdir(s.path("tmp"), 0o755))
			must(s.t, os.Remove(s.path("e/z")))
			// os.Rename refuses an existing directory as its target.
			must(s.t, unix.Rename(s.path("tmp"), s.path("e")))
		}},
		{"stamped directory chmod", func(s *watchSetup) { must(s.t, os.Chmod(s.path("a/b"), 0o700)) }},
		{"stamped directory times set", func(s *watchSetup) {
			old := time.Now().Add(-2 * time.Hour)
			must(s.t, os.Chtimes(s.path("a"), old, old))
		}},
		{"absent root created", func(s *watchSetup) { must(s.t, os.WriteFile(s.path(".env"), nil, 0o600)) }},
		{"absent root made in a directory made", func(s *watchSetup) {
			must(s.t, os.MkdirAll(s.path("deep/er"), 0o755))
		}},
		{"hard link to a stamped file from a directory not watched", func(s *watchSetup) {
			must(s.t, os.Link(s.path("secret/key"), s.path("out/k")))
		}},
		{"stamped file chmod", func(s *watchSetup) { must(s.t, os.Chmod(s.path("secret/key"), 0o600)) }},
		{"absent root created in a directory not stamped", func(s *watchSetup) {
			must(s.t, os.WriteFile(s.path("out/.env"), nil, 0o600))
		}},
		{"directory above a stamp renamed", func(s *watchSetup) {
			must(s.t, os.Rename(s.path("up/mid"), s.path("up/mid2")))
			must(s.t, os.MkdirAll(s.path("up/mid/root"), 0o755))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newWatchSetup(t, "a/b/x", "e/z", "secret/key", "out/readme", "up/mid/root/f")
			// A walk of a, e and secret from the workspace's top, a denied
			// file, three denials' roots absent (.env, deep/er/.env,
			// out/.env), one root whose parents are not stamped
			// (up/mid/root).
			s.stamp(".")
			s.stampDirs("a")
			s.stampDirs("e")
			s.stampDirs("secret")
			s.stamp("secret/key")
			s.stamp(".env")
			s.stamp("deep/er/.env")
			s.stamp("out/.env")
			s.stampDirs("up/mid/root")
			sw := s.watch()
			c.change(s)
			if sw.Stand() {
				t.Fatal("the watch stands after the change")
			}
			if s.ws.StampsStand(s.stamps) {
				t.Fatal("the stamps, polled, stand after the change: the case proves nothing")
			}
			if sw.Stand() {
				t.Fatal("the watch stands at the second check after the change")
			}
		})
	}
}

// TestStampWatchWriteStands: writing a file's content changes nothing a
// kept answer depends on, and is not reported.
func TestStampWatchWriteStands(t *testing.T) {
	s := newWatchSetup(t, "a/x", "secret/key")
	s.stampDirs(".")
	s.stamp("secret/key")
	sw := s.watch()
	must(s.t, os.WriteFile(s.path("a/x"), []byte("more"), 0o644))
	if !sw.Stand() {
		t.Fatal("a write to a file broke the watch")
	}
}

// TestStampWatchArmingRace: a change between the walk's stamps and the
// watch's arming queues no event; the check made once the watches are
// added sees it, and the stamps are polled (and do not stand).
func TestStampWatchArmingRace(t *testing.T) {
	s := newWatchSetup(t, "a/x")
	s.stampDirs(".")
	must(s.t, os.WriteFile(s.path("a/late"), nil, 0o644))
	sw, err := s.ws.WatchStamps(s.stamps)
	if err == nil || sw.fd >= 0 {
		t.Fatal("a watch armed over stamps that no longer stand was trusted")
	}
	defer sw.Close()
	if sw.Stand() {
		t.Fatal("stamps that changed before the watch was armed stand")
	}
}

// TestStampWatchFallback: when a watch cannot be added, or more are
// needed than the limit allows, or a directory on the way is a symbolic
// link, the stamps are polled, and a change is still seen.
func TestStampWatchFallback(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, s *watchSetup)
	}{
		{"add fails", func(t *testing.T, s *watchSetup) {
			calls := 0
			inotifyAddWatch = func(fd int, p string, mask uint32) (int, error) {
				if calls++; calls == 3 {
					return -1, unix.ENOSPC
				}
				return unix.InotifyAddWatch(fd, p, mask)
			}
			t.Cleanup(func() { inotifyAddWatch = unix.InotifyAddWatch })
		}},
		{"limit", func(t *testing.T, s *watchSetup) {
			saved := stampWatchLimit
			stampWatchLimit = func() int { return 2 }
			t.Cleanup(func() { stampWatchLimit = saved })
		}},
		{"symbolic link on the way", func(t *testing.T, s *watchSetup) {
			must(s.t, os.Symlink("a", s.path("l")))
			s.stamp("l/b/x")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newWatchSetup(t, "a/b/x", "c/y")
			c.setup(t, s)
			s.stampDirs(".")
			sw, err := s.ws.WatchStamps(s.stamps)
			if err == nil || sw.fd >= 0 {
				t.Fatal("watched, want polled")
			}
			defer sw.Close()
			if !sw.Stand() {
				t.Fatalf("polled stamps do not stand with nothing changed (%v)", err)
			}
			must(s.t, os.WriteFile(s.path("a/b/new"), nil, 0o644))
			if sw.Stand() {
				t.Fatal("polled stamps stand after a file was made")
			}
		})
	}
}

// TestStampWatchOverflow: events lost to a full queue (IN_Q_OVERFLOW)
// are a change: more events than fs.inotify.max_queued_events are made
// before the check.
func TestStampWatchOverflow(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skip(err)
	}
	var queued int
	if _, err := fmt.Sscan(string(b), &queued); err != nil || queued > 1<<16 {
		t.Skipf("max_queued_events %q: too many to overflow here", b)
	}
	s := newWatchSetup(t, "a/x")
	s.stampDirs(".")
	sw := s.watch()
	// A rename queues two events (IN_MOVED_FROM, IN_MOVED_TO).
	for i := 0; i <= queued/2; i++ {
		from, to := s.path("a/x"), s.path("a/y")
		if i%2 == 1 {
			from, to = to, from
		}
		must(t, unix.Rename(from, to))
	}
	// Read every event but the last, the overflow (IN_Q_OVERFLOW, no
	// name), leaving it alone queued for the check: each rename event
	// names x or y, its name padded to 16 bytes.
	const renameEvent = unix.SizeofInotifyEvent + 16
	for {
		left, err := unix.IoctlGetInt(sw.fd, unix.TIOCINQ) // FIONREAD
		must(t, err)
		if left%renameEvent != unix.SizeofInotifyEvent {
			t.Fatalf("%d bytes queued: not rename events and an overflow", left)
		}
		if left == unix.SizeofInotifyEvent {
			break
		}
		buf := make([]byte, min(left-unix.SizeofInotifyEvent, 256*renameEvent))
		n, err := unix.Read(sw.fd, buf)
		must(t, err)
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[0]))
		if n%renameEvent != 0 || ev.Mask&(unix.IN_MOVED_FROM|unix.IN_MOVED_TO) == 0 {
			t.Fatalf("read %d bytes, first event %#x", n, ev.Mask)
		}
	}
	// Only the overflow event is left queued for the check.
	if sw.Stand() {
		t.Fatal("the watch stands after its queue overflowed")
	}
}

// TestStampWatchClose: a closed watch releases its instance and never
// stands again.
func TestStampWatchClose(t *testing.T) {
	s := newWatchSetup(t, "a/x")
	s.stampDirs(".")
	sw := s.watch()
	fd := sw.fd
	sw.Close()
	if sw.Stand() {
		t.Fatal("a closed watch stands")
	}
	testwait.Until(t, 5*time.Second, "the instance's descriptor closed", func() bool {
		return unix.Fstat(fd, new(unix.Stat_t)) == unix.EBADF
	})
}

// TestStampWatchAgreesWithPolling: over a run of random changes to a
// tree (entries made, removed, renamed, linked, their modes and times
// set), the watch never stands where the stamps, polled, do not; after
// each change it reports, the tree is stamped and watched again. A file
// written changes its stamp's times but nothing a kept answer depends
// on, and is not reported (TestStampWatchWriteStands): the tree is
// stamped again after one.
func TestStampWatchAgreesWithPolling(t *testing.T) {
	s := newWatchSetup(t, "a/x", "a/b/y", "c/z")
	rng := rand.New(rand.NewPCG(1, 2))
	restamp := func() *StampWatch {
		s.stamps = nil
		s.stampDirs(".")
		err := fs.WalkDir(s.ws.Root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				s.stamp(p)
			}
			return err
		})
		must(t, err)
		s.stamp("absent/.env")
		s.stamp("a/.env")
		return s.watch()
	}
	// entries lists the tree's directories or files (not the top).
	entries := func(dirs bool) []string {
		var out []string
		_ = fs.WalkDir(s.ws.Root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != "." && d.IsDir() == dirs {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	pick := func(list []string) string {
		if len(list) == 0 {
			return ""
		}
		return list[rng.IntN(len(list))]
	}
	dirOrTop := func() string {
		if d := pick(entries(true)); d != "" && rng.IntN(3) > 0 {
			return d
		}
		return "."
	}
	sw := restamp()
	for i := range 300 {
		name := fmt.Sprintf("n%d", i)
		var what string
		switch rng.IntN(10) {
		case 0:
			what = "make a file"
			_ = os.WriteFile(s.path(dirOrTop()+"/"+name), nil, 0o644)
		case 1:
			what = "make a directory"
			_ = os.Mkdir(s.path(dirOrTop()+"/"+name), 0o755)
		case 2:
			what = "remove a file"
			if f := pick(entries(false)); f != "" {
				_ = os.Remove(s.path(f))
			}
		case 3:
			what = "remove a directory"
			if d := pick(entries(true)); d != "" {
				_ = os.RemoveAll(s.path(d))
			}
		case 4:
			what = "rename an entry"
			if e := pick(append(entries(true), entries(false)...)); e != "" {
				_ = os.Rename(s.path(e), s.path(dirOrTop()+"/"+name))
			}
		case 5:
			what = "link a file"
			if f := pick(entries(false)); f != "" {
				_ = os.Link(s.path(f), s.path(dirOrTop()+"/"+name))
			}
		case 6:
			what = "chmod a directory"
			if d := pick(entries(true)); d != "" {
				_ = os.Chmod(s.path(d), fs.FileMode(0o700+rng.IntN(2)*0o55))
			}
		case 7:
			what = "chmod a file"
			if f := pick(entries(false)); f != "" {
				_ = os.Chmod(s.path(f), fs.FileMode(0o600+rng.IntN(2)*0o44))
			}
		case 8:
			what = "set a directory's times"
			old := time.Now().Add(-time.Duration(rng.IntN(100)+1) * time.Hour)
			_ = os.Chtimes(s.path(dirOrTop()), old, old)
		case 9:
			what = "write a file"
			if f := pick(entries(false)); f != "" {
				_ = os.WriteFile(s.path(f), []byte(name), 0o644)
			}
		}
		stands, polled := sw.Stand(), s.ws.StampsStand(s.stamps)
		if what == "write a file" {
			stands = false
		} else if stands && !polled {
			t.Fatalf("change %d (%s): the watch stands, the stamps polled do not", i, what)
		}
		if !stands {
			sw.Close()
			sw = restamp()
		}
	}
}
