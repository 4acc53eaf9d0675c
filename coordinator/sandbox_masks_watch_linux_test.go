package coordinator

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/testproc"
	"golang.org/x/sys/unix"
)

// TestMaskCacheWatched: the kept listing's directories are watched (not
// polled); an ignored file made between two commands is masked by the
// second, a directory's mode change lists again, and close releases the
// watch's inotify instance.
func TestMaskCacheWatched(t *testing.T) {
	ws, dir := maskWorkspace(t)
	tool.WatchesClosed() // an earlier test's instances gone before counting
	before := testproc.InotifyInstances(t)
	var mc maskCache
	m := envRules()
	kept := func() {
		t.Helper()
		if _, err := mc.ignored(ws, m); err != nil {
			t.Fatal(err)
		}
		if errors.Is(mc.polled, unix.EMFILE) || errors.Is(mc.polled, unix.ENOSPC) {
			t.Skipf("this user's inotify instances or watches are used up: %v", mc.polled)
		}
		if mc.watch == nil || mc.polled != nil {
			t.Fatalf("the listing's directories are not watched: %v", mc.polled)
		}
		first := mc.paths
		if again, _ := mc.ignored(ws, m); &again[0] != &first[0] {
			t.Fatal("listed again with nothing changed")
		}
	}
	kept()
	if err := os.WriteFile(filepath.Join(dir, "a", "b", "two.env"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := mc.ignored(ws, m)
	wantMasks(t, got, dir, "a/b/one.env", "a/b/two.env")

	ageDirs(t, dir, "", "a", "a/b")
	kept()
	first := mc.paths
	if err := os.Chmod(filepath.Join(dir, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if again, _ := mc.ignored(ws, m); &again[0] == &first[0] {
		t.Fatal("a directory's mode change kept the listing")
	}
	testproc.WaitInotifyInstances(t, before+1, "for one kept listing")
	mc.close()
	testproc.WaitInotifyInstances(t, before, "after close")
}

// TestCloseReleasesStampWatches: the coordinator's Close releases the
// inotify instances of its kept masks and LinkCache answers.
func TestCloseReleasesStampWatches(t *testing.T) {
	ws, _ := maskWorkspace(t)
	tool.WatchesClosed() // an earlier test's instances gone before counting
	before := testproc.InotifyInstances(t)
	c := New(Options{Workspace: ws, Config: DefaultConfig()})
	if _, err := c.masks.ignored(ws, envRules()); err != nil {
		t.Fatal(err)
	}
	c.links.EditDeniedPaths(ws, []string{"**/*.env"})
	if c.masks.watch == nil || c.masks.polled != nil {
		t.Skipf("the masks' directories are not watched: %v", c.masks.polled)
	}
	c.Close()
	testproc.WaitInotifyInstances(t, before, "after Close")
}
