package tool

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// editLockWorkspace has real/f.txt, a directory alias, a file alias and a
// dangling link to a file not created yet.
func editLockWorkspace(t *testing.T) *Workspace {
	t.Helper()
	dir := t.TempDir()
	for _, step := range []error{
		os.MkdirAll(filepath.Join(dir, "real"), 0o755),
		os.WriteFile(filepath.Join(dir, "real", "f.txt"), []byte("x\n"), 0o644),
		os.WriteFile(filepath.Join(dir, "other.txt"), []byte("y\n"), 0o644),
		os.Symlink("real", filepath.Join(dir, "alias")),
		os.Symlink("real/f.txt", filepath.Join(dir, "f-link.txt")),
		os.Symlink("real/new.txt", filepath.Join(dir, "new-link.txt")),
	} {
		if step != nil {
			t.Fatal(step)
		}
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	return ws
}

func TestFileIdentityFollowsAliases(t *testing.T) {
	ws := editLockWorkspace(t)
	for _, group := range [][]string{
		{"real/f.txt", "alias/f.txt", "f-link.txt", "./real/../real/f.txt"},
		{"real/new.txt", "alias/new.txt", "new-link.txt"},
		{"newdir/sub/g.txt", "newdir/sub/../sub/g.txt"},
	} {
		want := ws.fileIdentity(group[0])
		for _, p := range group[1:] {
			if got := ws.fileIdentity(p); got != want {
				t.Errorf("identity(%q) = %q, want %q as for %q", p, got, want, group[0])
			}
		}
	}
	if a, b := ws.fileIdentity("real/f.txt"), ws.fileIdentity("other.txt"); a == b {
		t.Errorf("two files share the identity %q", a)
	}
	// A file whose directory does not exist yet has the name it will have
	// once created, so an edit creating it and one made after it exists
	// share a lock.
	before := ws.fileIdentity("made/later.txt")
	if err := ws.Root.MkdirAll("made", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ws.Root.WriteFile("made/later.txt", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if after := ws.fileIdentity("made/later.txt"); after != before {
		t.Errorf("identity before creation %q, after %q", before, after)
	}
}

// TestLockForEditExcludesAliases holds a file's lock and checks that a
// second holder through another path waits until it is released.
func TestLockForEditExcludesAliases(t *testing.T) {
	ws := editLockWorkspace(t)
	unlock := ws.LockForEdit("real/f.txt", "other.txt")
	var entered atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		u := ws.LockForEdit("f-link.txt")
		entered.Store(true)
		u()
	}()
	// The waiter has registered once the lock's holder count reaches 2; it
	// then blocks on the mutex, so it must not have entered.
	id := ws.fileIdentity("real/f.txt")
	deadline := time.Now().Add(10 * time.Second)
	for waiters(ws, id) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the second locker never queued")
		}
		time.Sleep(time.Millisecond)
	}
	if entered.Load() {
		t.Fatal("a second edit of the same file entered while the lock was held")
	}
	// Another file is not held up.
	ws.LockForEdit("alias/new.txt")()
	unlock()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not get the lock after it was released")
	}
	if !entered.Load() {
		t.Error("the waiter finished without entering")
	}
	if n := len(ws.edits.byID); n != 0 {
		t.Errorf("%d lock entries left after every holder released", n)
	}
}

// TestLockForEditManyPathsNoDeadlock locks overlapping sets of paths in
// opposite orders from many goroutines.
func TestLockForEditManyPathsNoDeadlock(t *testing.T) {
	ws := editLockWorkspace(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		finished := make(chan struct{}, 20)
		for i := range 20 {
			go func() {
				paths := []string{"real/f.txt", "other.txt", "alias/new.txt"}
				if i%2 == 1 {
					paths = []string{"alias/new.txt", "other.txt", "f-link.txt", "real/f.txt"}
				}
				for range 50 {
					ws.LockForEdit(paths...)()
				}
				finished <- struct{}{}
			}()
		}
		for range 20 {
			<-finished
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("lockers deadlocked")
	}
}

func waiters(ws *Workspace, id string) int {
	ws.edits.mu.Lock()
	defer ws.edits.mu.Unlock()
	if l := ws.edits.byID[id]; l != nil {
		return l.refs
	}
	return 0
}
