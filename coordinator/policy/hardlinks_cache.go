package policy

import (
	"io/fs"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// LinkCache keeps the last answers of the walks for other names of
// denied files (hardlinks.go), one for the files deny rules keep from
// reading (WithHardLinks) and one for those they keep from editing
// (EditDeniedLinks), each with the state it was computed from, so
// that a call costs one read of an inotify instance watching every
// entry the walks read (tool.StampWatch), or a stat of each where it
// cannot watch them, instead of the walks (a deny rule matching at
// any depth walks the whole workspace). An answer depends on the
// rules (the same matcher and denials), on the entries of every
// directory the walks read, and on the names count of every denied
// file they found; so it stands while each of those directories keeps
// its inode, times and names count (an entry added, removed or
// renamed in it changes its modification time), each denial's root is
// what it was (absent, the same directory, the same file), and each
// denied file keeps its inode, names count and change time: a new
// name made for it from a directory the walks did not read (outside
// the denials' roots) changes its count. A second name made in the
// workspace of a file with one name is seen by the count; when a
// denied file has several names the whole workspace is walked and
// stamped, so a new one there changes a directory. An answer is not
// kept when a directory read changed less than tool.StampRacy before
// the walk, when one was not plainly readable (a mode change would
// show entries the walk did not see), when a root is neither absent,
// a directory nor a regular file, or when the walk stopped at
// maxLinkScan. It exists for speed: BenchmarkHardLinkCache and
// BenchmarkHardLinkCacheEdit (./coordinator/policy/) defend it, and
// BenchmarkStampWatch its watch.
type LinkCache struct {
	read keptLinks[*ignore.Matcher] // hidden with the other names added
	edit keptLinks[[]string]        // the other names
	// editPaths is EditDeniedPaths: the denied entries and their other
	// names, for a command's sandbox.
	editPaths keptLinks[[]string]
	// The read answer is keyed by its matcher, hidden (which holds the
	// ignore rules too); the edit answer's matcher is made of its
	// patterns alone, so they are its key.
}

// WithHardLinks returns hidden with the other names of the denied files
// (hidden's matches that denials added to base) that have several names:
// the kept answer while it stands, else a walk's.
func (lc *LinkCache) WithHardLinks(ws *tool.Workspace, base, hidden *ignore.Matcher, denials []string) *ignore.Matcher {
	if ws == nil || hidden == base {
		return hidden
	}
	return lc.read.get(ws, hidden, denials, func(rec *linkStamps) *ignore.Matcher {
		return withNames(hidden, otherNames(ws, denialRoots(denials), matchedBy(hidden), rec))
	})
}

// EditDeniedLinks are the other names in the workspace of the files the
// patterns deny editing that have several names: the kept answer while
// it stands, else a walk's. The slice is the kept one: callers only read
// it.
func (lc *LinkCache) EditDeniedLinks(ws *tool.Workspace, patterns []string) []string {
	if ws == nil || len(patterns) == 0 {
		return nil
	}
	return lc.edit.get(ws, nil, patterns, func(rec *linkStamps) []string {
		return otherNames(ws, denialRoots(patterns), matchedBy(editDenials(patterns)), rec)
	})
}

// Close releases the kept answers' watches (tool.StampWatch); answers
// asked for afterwards are walked for and not kept.
func (lc *LinkCache) Close() {
	lc.read.close()
	lc.edit.close()
	lc.editPaths.close()
}

// keptLinks is one kept answer of LinkCache: what walk made of the
// workspace for a matcher and denials, and the watch over the stamps it
// stands on.
type keptLinks[T any] struct {
	mu      sync.Mutex
	ws      *tool.Workspace
	matcher *ignore.Matcher // nil when the denials alone make the matcher
	denials []string
	answer  T
	// watch tells whether the stamps stand, in one read of an inotify
	// instance where it can, else by polling them (tool.StampWatch);
	// nil: nothing kept. A replaced answer's watch is closed.
	watch  *tool.StampWatch
	polled error // why watch polls the stamps (nil: it watches them), for tests
	walks  int   // answers computed, for tests
	closed bool  // Close was called: nothing is kept
}

// get returns the kept answer while it was asked of the same workspace,
// matcher and denials and its stamps stand, else walk's answer, kept.
func (k *keptLinks[T]) get(ws *tool.Workspace, matcher *ignore.Matcher, denials []string, walk func(*linkStamps) T) T {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.watch != nil && k.ws == ws && k.matcher == matcher &&
		slices.Equal(k.denials, denials) && k.watch.Stand() {
		return k.answer
	}
	k.walks++
	rec := &linkStamps{since: time.Now().Add(-tool.StampRacy), euid: os.Geteuid()}
	answer := walk(rec)
	k.watch.Close()
	k.watch, k.polled = nil, nil
	k.ws, k.matcher, k.denials, k.answer = ws, matcher, slices.Clone(denials), answer
	if !rec.spoiled && rec.stamps != nil && !k.closed {
		k.watch, k.polled = ws.WatchStamps(rec.stamps)
	}
	return answer
}

// close releases the kept answer's watch and keeps nothing from then on.
func (k *keptLinks[T]) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.watch.Close()
	k.watch, k.closed = nil, true
}

// matchedBy reports the regular files m matches, for otherNames.
func matchedBy(m *ignore.Matcher) func(rel string) bool {
	return func(rel string) bool {
		_, hit := m.Match(rel, false)
		return hit
	}
}

// linkStamps collects what LinkCache's walks read; a nil one
// collects nothing.
type linkStamps struct {
	since   time.Time
	euid    int
	stamps  []tool.Stamp
	seen    map[string]bool // paths stamped: nested roots and the second walk read them again
	spoiled bool            // the answer must not be kept
}

// add keeps a stamp once.
func (r *linkStamps) add(s tool.Stamp) {
	if r.seen[s.Path] {
		return
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[s.Path] = true
	r.stamps = append(r.stamps, s)
}

// spoil marks the answer as not to be kept.
func (r *linkStamps) spoil() {
	if r != nil {
		r.spoiled = true
	}
}

// root stamps a denial's root before it is walked.
func (r *linkStamps) root(ws *tool.Workspace, dir string) {
	if r == nil || r.spoiled {
		return
	}
	s, err := ws.StampPath(dir)
	if err != nil {
		r.spoiled = true
		return
	}
	if !s.Absent {
		info, err := ws.Root.Lstat(dir)
		if err != nil || !(info.IsDir() || info.Mode().IsRegular()) {
			r.spoiled = true
			return
		}
		if info.IsDir() {
			r.stampDir(dir, info)
			return
		}
	}
	r.add(s)
}

// dir stamps a directory the walk is about to read.
func (r *linkStamps) dir(p string, d fs.DirEntry) {
	if r == nil || r.spoiled || !d.IsDir() {
		return
	}
	info, err := d.Info()
	if err != nil {
		r.spoiled = true
		return
	}
	r.stampDir(p, info)
}

func (r *linkStamps) stampDir(p string, info fs.FileInfo) {
	s := tool.StampOf(p, info)
	if s.Recent(r.since) || !r.readable(info) {
		r.spoiled = true
		return
	}
	r.add(s)
}

// readable reports a directory this process can list and enter by its
// owner's or everyone's permission bits (a group's are not looked at:
// such a directory spoils the answer).
func (r *linkStamps) readable(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	perm := info.Mode().Perm()
	return r.euid == 0 || perm&0o005 == 0o005 || (int(st.Uid) == r.euid && perm&0o500 == 0o500)
}

// file is a denied regular file's identity and names count, stamped.
func (r *linkStamps) file(p string, d fs.DirEntry) (fileKey, uint64) {
	info, err := d.Info()
	if err != nil {
		r.spoil()
		return fileKey{}, 0
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		r.spoil()
		return fileKey{}, 0
	}
	if r != nil && !r.spoiled {
		r.add(tool.StampOf(p, info))
	}
	return fileKey{dev: uint64(st.Dev), ino: st.Ino}, uint64(st.Nlink)
}
