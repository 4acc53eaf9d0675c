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

// LinkCache keeps the last answer of the walk for other names of
// read-denied files (hardlinks.go) with the state it was computed
// from, so that a call costs a stat of each entry the walks read instead
// of the walks (a read deny rule matching at any depth
// walks the whole workspace). The answer depends on the rules (the same
// matchers and denials), on the entries of every directory the walks
// read, and on the names count of every denied file they found; so it
// stands while each of those directories keeps its inode, times and
// names count (an entry added, removed or renamed in it changes its
// modification time), each denial's root is what it was (absent, the
// same directory, the same file), and each denied file keeps its inode,
// names count and change time: a new name made for it from a directory
// the walks did not read (outside the denials' roots) changes its count.
// A second name made in the workspace of a file with one name is seen by
// the count; when a denied file has several names the whole workspace is
// walked and stamped, so a new one there changes a directory. An answer
// is not kept when a directory read changed less than tool.StampRacy
// before the walk, when one was not plainly readable (a mode change
// would show entries the walk did not see), when a root is neither
// absent, a directory nor a regular file, or when the walk stopped at
// maxLinkScan. It exists for speed: BenchmarkHardLinkCache
// (./coordinator/policy/) defends it.
type LinkCache struct {
	mu      sync.Mutex
	ws      *tool.Workspace
	base    *ignore.Matcher
	hidden  *ignore.Matcher
	denials []string
	out     *ignore.Matcher
	stamps  []tool.Stamp // nil: nothing kept
	walks   int          // answers computed, for tests
}

// WithHardLinks returns hidden with the other names of the denied files
// (hidden's matches that denials added to base) that have several names:
// the kept answer while it stands, else a walk's.
func (lc *LinkCache) WithHardLinks(ws *tool.Workspace, base, hidden *ignore.Matcher, denials []string) *ignore.Matcher {
	if ws == nil || hidden == base {
		return hidden
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.stamps != nil && lc.ws == ws && lc.base == base && lc.hidden == hidden &&
		slices.Equal(lc.denials, denials) && ws.StampsStand(lc.stamps) {
		return lc.out
	}
	lc.walks++
	rec := &linkStamps{since: time.Now().Add(-tool.StampRacy), euid: os.Geteuid()}
	out := withNames(hidden, otherNames(ws, denialRoots(denials), func(p string) bool {
		_, hit := hidden.Match(p, false)
		return hit
	}, rec))
	lc.ws, lc.base, lc.hidden, lc.denials, lc.out, lc.stamps = ws, base, hidden, slices.Clone(denials), out, rec.stamps
	if rec.spoiled || rec.stamps == nil {
		lc.stamps = nil
	}
	return out
}

// linkStamps collects what WithHardLinks's walks read; a nil one
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
