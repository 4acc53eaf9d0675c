package tool

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"

	"github.com/toolgate/toolgate/internal/fdpath"
)

// editLocks serializes edits per file across every session and entry point
// of one workspace. An edit reads the file, checks it is what its session
// last saw, and writes; two edits interleaving those steps would both pass
// the check and the first one's change would be lost. Holding the file's
// lock from the read to the write makes the later edit see the earlier
// one's result, and refuse with file_changed if its session never saw it.
type editLocks struct {
	mu   sync.Mutex
	byID map[string]*editLock
}

// editLock is one file's lock; refs counts holders and waiters, so the
// entry is dropped once nobody needs it and the table stays small.
type editLock struct {
	mu   sync.Mutex
	refs int
}

// LockForEdit takes the edit lock of each path (as a tool input gives it:
// relative to the workspace, or absolute inside it) and returns the
// function that releases them. Every tool that changes a file
// holds it from reading the file for its stale check until the write is
// done, and so does a revert; a tool editing one file should use the
// handlers' guarded edit, which does this. Paths are locked in a fixed
// order, so tools locking several files cannot deadlock.
//
// The lock belongs to the file, not the spelling of its path: "a/f" and
// "link-to-a/f" share one. A path is resolved when the lock is taken; a
// symlink swapped while it is held is refused or followed by os.Root
// when the file is opened, as any other edit.
func (w *Workspace) LockForEdit(rels ...string) (unlock func()) {
	ids := make([]string, 0, len(rels))
	for _, p := range rels {
		rel, err := w.Rel(p)
		if err != nil {
			continue // refused when the tool opens it; nothing to guard
		}
		ids = append(ids, w.fileIdentity(rel))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	held := make([]*editLock, 0, len(ids))
	for _, id := range ids {
		held = append(held, w.edits.acquire(id))
	}
	return func() {
		for i := len(held) - 1; i >= 0; i-- {
			w.edits.release(ids[i], held[i])
		}
	}
}

func (t *editLocks) acquire(id string) *editLock {
	t.mu.Lock()
	if t.byID == nil {
		t.byID = map[string]*editLock{}
	}
	l := t.byID[id]
	if l == nil {
		l = &editLock{}
		t.byID[id] = l
	}
	l.refs++
	t.mu.Unlock()
	l.mu.Lock()
	return l
}

func (t *editLocks) release(id string, l *editLock) {
	l.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if l.refs--; l.refs == 0 {
		delete(t.byID, id)
	}
}

// maxIdentityLinks matches the symlink depth os.Root follows.
const maxIdentityLinks = 8

// fileIdentity names the file rel refers to: its absolute path after every
// symlink, or, for a file not created yet, the resolved path of its
// nearest existing directory plus the rest of the name (following a
// dangling final symlink as the atomic writer does). Where nothing
// resolves (an unsupported system, a path os.Root refuses) the lexical
// path inside the workspace is the name, which is what the resolved name
// of the same file is when no symlink is involved; such an edit is refused
// when it opens the file anyway.
func (w *Workspace) fileIdentity(rel string) string {
	name := filepath.Clean(filepath.FromSlash(rel))
	lexical := filepath.Join(w.Dir, name)
	for range maxIdentityLinks + 1 {
		abs, err := fdpath.Resolve(w.Root, name)
		if err == nil {
			return abs
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return lexical
		}
		info, err := w.Root.Lstat(name)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			break
		}
		link, err := w.Root.Readlink(name)
		if err != nil || filepath.IsAbs(link) {
			return lexical
		}
		name = filepath.Join(filepath.Dir(name), link)
	}
	dir, rest := filepath.Dir(name), filepath.Base(name)
	for {
		abs, err := fdpath.Resolve(w.Root, dir)
		if err == nil {
			return filepath.Join(abs, rest)
		}
		if !errors.Is(err, fs.ErrNotExist) || dir == "." {
			return lexical
		}
		dir, rest = filepath.Dir(dir), filepath.Join(filepath.Base(dir), rest)
	}
}
