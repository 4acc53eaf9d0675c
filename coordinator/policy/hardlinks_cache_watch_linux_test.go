package policy

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/testproc"
	"golang.org/x/sys/unix"
)

// requireWatched fails unless a kept answer's stamps are watched (not
// polled); it skips when this user's inotify instances or watches are
// used up by other programs.
func requireWatched(t *testing.T, kept bool, polled error) {
	t.Helper()
	if errors.Is(polled, unix.EMFILE) || errors.Is(polled, unix.ENOSPC) {
		t.Skipf("this user's inotify instances or watches are used up: %v", polled)
	}
	if !kept || polled != nil {
		t.Fatalf("the answer's stamps are not watched (kept %v): %v", kept, polled)
	}
}

// TestLinkCacheWatchedLinkBetweenCalls: with the read answer's stamps
// watched, a hard link to a denied file made between two calls from a
// directory the walk read is seen: the second call walks again.
func TestLinkCacheWatchedLinkBetweenCalls(t *testing.T) {
	s := newLinkSetup(t, ".env", "a/.env", "b/x")
	s.kept()
	requireWatched(t, s.lc.read.watch != nil, s.lc.read.polled)
	walks := s.lc.read.walks
	s.link("a/.env", "b/notes")
	wantHidden(t, s.call(), "a/.env", "b/notes")
	if s.lc.read.walks != walks+1 {
		t.Fatalf("%d walks after the link, want %d", s.lc.read.walks, walks+1)
	}
}

// TestLinkCacheWatchedEditAnswers: the edit answers' stamps are watched
// too; a link to an edit-denied file made from a directory no walk read
// (only the file's names count changes) is seen by both.
func TestLinkCacheWatchedEditAnswers(t *testing.T) {
	s := newLinkSetup(t, "/locked/**", "locked/a", "out/readme")
	wantHidden(t, s.editCall())
	paths := s.lc.EditDeniedPaths(s.ws, s.denials)
	requireWatched(t, s.lc.edit.watch != nil, s.lc.edit.polled)
	requireWatched(t, s.lc.editPaths.watch != nil, s.lc.editPaths.polled)
	wantHidden(t, s.editCall())
	if again := s.lc.EditDeniedPaths(s.ws, s.denials); !slices.Equal(again, paths) {
		t.Fatalf("listed %v, then %v with nothing changed", paths, again)
	}
	if s.lc.edit.walks != 1 || s.lc.editPaths.walks != 1 {
		t.Fatalf("%d and %d walks with nothing changed, want one each", s.lc.edit.walks, s.lc.editPaths.walks)
	}
	s.link("locked/a", "out/alias")
	wantHidden(t, s.editCall(), "out/alias")
	if got := s.lc.EditDeniedPaths(s.ws, s.denials); !slices.Contains(got, s.path("out/alias")) {
		t.Fatalf("listed %v, want out/alias among them", got)
	}
	if s.lc.edit.walks != 2 || s.lc.editPaths.walks != 2 {
		t.Fatalf("%d and %d walks after the link, want two each", s.lc.edit.walks, s.lc.editPaths.walks)
	}
}

// TestLinkCacheWatchReleased: a replaced answer's inotify instance and,
// at Close, the kept one's are released; after Close nothing is kept.
func TestLinkCacheWatchReleased(t *testing.T) {
	s := newLinkSetup(t, ".env", "a/.env", "b/x")
	tool.WatchesClosed() // an earlier test's instances gone before counting
	before := testproc.InotifyInstances(t)
	s.kept()
	requireWatched(t, s.lc.read.watch != nil, s.lc.read.polled)
	testproc.WaitInotifyInstances(t, before+1, "for one kept answer")
	if err := os.WriteFile(s.path("b/y"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.age()
	s.call()
	requireWatched(t, s.lc.read.watch != nil, s.lc.read.polled)
	testproc.WaitInotifyInstances(t, before+1, "once the answer was replaced")
	s.lc.Close()
	testproc.WaitInotifyInstances(t, before, "after Close")
	walks := s.lc.read.walks
	s.call()
	s.call()
	if s.lc.read.watch != nil || s.lc.read.walks != walks+2 {
		t.Fatal("an answer was kept after Close")
	}
}
