package coordinator

import (
	"io/fs"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// maskCache keeps the last listing of the workspace paths the ignore
// rules exclude, with the state of every directory the listing read,
// so that a command's masks cost one read of an inotify instance
// watching every directory the listing read (tool.StampWatch), or a
// stat of each where it cannot watch them, instead of a walk of the
// whole workspace (ReadDir and a match of every entry). Whether an
// entry is excluded depends only on the rules and its path and kind;
// any entry added, removed or renamed changes its directory's
// modification time, so the listing stands while the rules (the same
// matcher) and every directory's time and inode stand. A directory
// changed less than masksRacy before the listing proves nothing (file
// systems stamp times from a coarse clock): such a listing is not
// kept. It exists for speed: BenchmarkIgnoredMasks (./coordinator/)
// defends it.
type maskCache struct {
	mu    sync.Mutex
	ws    *tool.Workspace // the one the listing was made of
	m     *ignore.Matcher
	paths []string
	// watch tells whether the directories' stamps stand; nil: nothing
	// kept. A replaced listing's watch is closed.
	watch  *tool.StampWatch
	polled error // why watch polls the stamps (nil: it watches them), for tests
	closed bool  // close was called: nothing is kept
}

// masksRacy is how recent a directory's change may be for a listing
// that read it to be kept (tool.StampRacy).
const masksRacy = tool.StampRacy

// ignored lists the workspace paths m excludes, from the kept listing
// when it still stands.
func (mc *maskCache) ignored(ws *tool.Workspace, m *ignore.Matcher) ([]string, error) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if mc.ws == ws && mc.m == m && mc.watch != nil && mc.watch.Stand() {
		return mc.paths, nil
	}
	mc.watch.Close()
	mc.watch, mc.polled = nil, nil
	paths, dirs, err := ignoredPaths(ws, m)
	if err != nil {
		mc.m, mc.paths = nil, nil
		return nil, err
	}
	mc.ws, mc.m, mc.paths = ws, m, paths
	if dirs != nil && !mc.closed {
		mc.watch, mc.polled = ws.WatchStamps(dirs)
	}
	return paths, nil
}

// close releases the kept listing's watch and keeps nothing from then
// on.
func (mc *maskCache) close() {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	mc.watch.Close()
	mc.watch, mc.closed = nil, true
}

// ignoredPaths lists the absolute paths of the workspace entries m
// excludes; an excluded directory is listed once and not entered. It
// also returns the state of each directory it read, each taken before
// the directory was read, or nil when one had changed too recently for
// its time to prove anything.
func ignoredPaths(ws *tool.Workspace, m *ignore.Matcher) ([]string, []tool.Stamp, error) {
	var out []string
	var dirs []tool.Stamp
	var linked []string // files with several names, for linkedMasks
	racy := false
	since := time.Now().Add(-masksRacy)
	err := fs.WalkDir(ws.Root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the sandbox cannot read it either
		}
		if p != "." {
			// The ignore file covering itself guards the rules, not a
			// secret; masking it would show git a changed .clineignore.
			if r, hit := m.Match(p, d.IsDir()); hit && !r.Self() {
				out = append(out, filepath.Join(ws.Dir, filepath.FromSlash(p)))
				if len(out) > maxMasks {
					return errTooManyMasks
				}
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
		}
		if d.Type().IsRegular() && hasOtherNames(d) {
			linked = append(linked, p)
		}
		if d.IsDir() && !racy {
			// WalkDir calls here before it reads the directory.
			info, err := d.Info()
			if err != nil {
				racy = true
				return nil
			}
			s := tool.StampOf(p, info)
			racy = s.Recent(since)
			dirs = append(dirs, s)
		}
		return nil
	})
	if err != nil {
		return nil, nil, tool.Errorf(api.ToolCodeFailed, "The command was not run: more than %d workspace paths are excluded by the ignore rules, "+
			"too many to hide from it. Exclude their directories instead of the files one by one.", maxMasks)
	}
	if racy {
		dirs = nil
	}
	out = append(out, linkedMasks(ws, m, linked)...)
	if len(out) > maxMasks {
		return nil, nil, tool.Errorf(api.ToolCodeFailed, "The command was not run: more than %d workspace paths are excluded by the ignore rules, "+
			"too many to hide from it. Exclude their directories instead of the files one by one.", maxMasks)
	}
	return out, dirs, nil
}

// hasOtherNames reports a file with more than one name: one lstat per
// regular file the walk keeps, paid when the listing is made again.
func hasOtherNames(d fs.DirEntry) bool {
	info, err := d.Info()
	if err != nil {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}

// linkedMasks are the absolute paths of the files among linked (not
// ignored themselves) that are hard links to a file the rules ignore
// under another name (tool/hardlinks.go): masked as that name is.
// A link made later inside an ignored directory changes no directory
// the listing stamped; its other name was not secret before it.
func linkedMasks(ws *tool.Workspace, m *ignore.Matcher, linked []string) []string {
	var out []string
	for _, p := range linked {
		info, err := ws.Root.Lstat(filepath.FromSlash(p))
		if err != nil {
			continue
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok || st.Nlink <= 1 {
			continue
		}
		if ignored, _ := ws.LinkedIgnored(st, m); ignored != "" {
			out = append(out, filepath.Join(ws.Dir, filepath.FromSlash(p)))
		}
	}
	return out
}
