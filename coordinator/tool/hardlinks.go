package tool

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/ignore"
)

// A hard link is a second name of the same file. `ln .env notes.txt`
// makes the ignored .env readable as notes.txt, a name no rule covers;
// `ln ~/.ssh/id_rsa key` (on the same file system) puts a file that lives
// outside the workspace under a workspace name, which os.Root cannot
// tell from any other file. So a regular file with more than one name is
// judged by all its names: when the ignore rules cover one, every name is
// refused as that one is; when not all of them are in the workspace (a
// name outside it, or more names than a bounded walk found), the file is
// refused as a path leading outside the workspace is, unless every user
// of the machine may read it: package stores (pnpm's, uv's) hard-link
// their world-readable files into node_modules and .venv, while the
// files worth stealing (keys, credentials) are private to their owner.
// A file with one name (nearly all) costs one fstat more.

// maxLinkWalk bounds the workspace entries a search for other names
// looks at; past it the names not found count as outside.
const maxLinkWalk = 200000

// linkFresh is how long a finding that some names are missing stands
// before the workspace is walked again to look for them.
const linkFresh = 2 * time.Second

// fileKey identifies a file whatever its name.
type fileKey struct{ dev, ino uint64 }

// linkIndex lists the names of the workspace's files that have several,
// from the last walk. A file's entry is reused while every name in it
// still names the file and it has as many names as the file counts:
// then they are all its names, whatever changed elsewhere.
type linkIndex struct {
	mu     sync.Mutex
	names  map[fileKey][]string
	walked time.Time
}

// LinkNames returns the workspace-relative names (slash-separated) of the
// regular file st describes, and whether they are all of its names; nil
// and true for a file with one name.
func (ws *Workspace) LinkNames(st *syscall.Stat_t) ([]string, bool) {
	if st.Nlink <= 1 {
		return nil, true
	}
	key := fileKey{dev: uint64(st.Dev), ino: st.Ino}
	ix := &ws.links
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if names, ok := ix.names[key]; ok && ws.stillNames(key, names) {
		all := uint64(len(names)) >= uint64(st.Nlink)
		if all || time.Since(ix.walked) < linkFresh {
			return names, all
		}
	}
	ix.names, ix.walked = ws.walkLinks(), time.Now()
	names := ix.names[key]
	return names, uint64(len(names)) >= uint64(st.Nlink)
}

// stillNames reports whether every name still names the file.
func (ws *Workspace) stillNames(key fileKey, names []string) bool {
	for _, n := range names {
		info, err := ws.Root.Lstat(n)
		if err != nil {
			return false
		}
		if k, _ := keyOf(info); k != key {
			return false
		}
	}
	return true
}

// walkLinks lists the names of every regular file of the workspace that
// has several, not following links, looking at maxLinkWalk entries at
// most.
func (ws *Workspace) walkLinks() map[fileKey][]string {
	out := map[fileKey][]string{}
	n := 0
	_ = fs.WalkDir(ws.Root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if n++; n > maxLinkWalk {
			return fs.SkipAll
		}
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if k, nlink := keyOf(info); nlink > 1 {
			out[k] = append(out[k], p)
		}
		return nil
	})
	return out
}

// keyOf is a file's identity and its number of names.
func keyOf(info fs.FileInfo) (fileKey, uint64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, 0
	}
	return fileKey{dev: uint64(st.Dev), ino: st.Ino}, uint64(st.Nlink)
}

// LinkedIgnored judges a regular file with several names by its other
// names: the one m ignores ("" when none), and whether some name is not
// in the workspace while the file is private (not readable by others).
func (ws *Workspace) LinkedIgnored(st *syscall.Stat_t, m *ignore.Matcher) (ignored string, outside bool) {
	names, all := ws.LinkNames(st)
	if m != nil {
		for _, n := range names {
			if r, hit := m.Match(n, false); hit && !r.Self() {
				return n, false
			}
		}
	}
	return "", !all && st.Mode&worldReadable == 0
}

// worldReadable is the permission bit that lets every user read a file.
const worldReadable = 0o004

// checkLinks refuses an opened regular file that has several names when
// another name of it is ignored or not in the workspace.
func (c *Call) checkLinks(f *os.File, rel string) error {
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	return c.CheckLinked(st, rel)
}

// CheckLinked is checkLinks for a file the caller opened and stat'ed
// itself (an edit's target, whose old content the edit shows).
func (c *Call) CheckLinked(st *syscall.Stat_t, rel string) error {
	if st == nil || st.Nlink <= 1 || c.Workspace == nil {
		return nil
	}
	ignored, outside := c.Workspace.LinkedIgnored(st, c.rt.Ignored)
	if ignored != "" {
		return c.ignoredError(fmt.Sprintf("%s (a hard link to %s)", rel, ignored), ignored, false)
	}
	if outside {
		return LinkOutsideError(rel)
	}
	return nil
}

// LinkOutsideError refuses a private file whose other names are not all
// in the workspace: its content also lives outside it, where the file
// tools do not reach.
func LinkOutsideError(rel string) error {
	return Errorf(api.ToolCodeOutside, "Access to %s is refused: it is a hard link to a file that also has a name outside the workspace "+
		"(or in a part of it too large to search); only files inside the workspace can be used.", Display(rel))
}

// WithholdLinked reports whether a search must leave out the workspace
// file rel (found by a walk, not opened by the caller): a regular file
// with several names, one of them ignored or not in the workspace.
func (c *Call) WithholdLinked(rel string) bool {
	if c == nil || c.Workspace == nil {
		return false
	}
	info, err := c.Workspace.Root.Lstat(rel)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink <= 1 {
		return false
	}
	ignored, outside := c.Workspace.LinkedIgnored(st, c.rt.Ignored)
	return ignored != "" || outside
}
