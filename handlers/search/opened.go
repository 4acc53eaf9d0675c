package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/internal/fdpath"
)

// The caller's Exclude rules (.clineignore) protect files where they really
// are. A walk judges names, then opens them through os.Root, which follows
// a symlink that stays inside the workspace: an entry or a start directory
// swapped for a link after it was judged would lead the walk into an
// excluded directory. So every directory and file a walk opens is checked
// on its handle (internal/fdpath): a directory or file must be the very
// entry the walk listed, and the start directory is judged by Exclude where
// it really is. Where the system cannot name a handle, the checks pass and
// the judgement by name stands.

// ExcludedError refuses a walk whose start directory, where it really is,
// is excluded (a link swapped in for a directory the caller named).
type ExcludedError struct {
	Path string // as the caller named it
	Real string // workspace-relative, where the opened directory really is
}

func (e *ExcludedError) Error() string {
	return fmt.Sprintf("%s leads to %s, which is excluded", e.Path, e.Real)
}

// startDir is the opened directory a walk starts from.
type startDir struct {
	root *os.Root
	// real is its absolute real path from the handle; "" when unknown.
	real string
	// realRel is real relative to the workspace, slash-separated ("" for
	// the workspace itself); the name the caller gave when unknown.
	realRel string
}

// openStart opens start below root and judges it, where it really is, by
// exclude (by name). The caller closes sd.root.
func openStart(root *os.Root, start string, exclude func(string, bool) bool) (*startDir, error) {
	r, err := root.OpenRoot(dotIfEmpty(start))
	if err != nil {
		return nil, err
	}
	sd := &startDir{root: r, realRel: start}
	top, real := fdpath.RootPath(root), fdpath.RootPath(r)
	if top != "" && real != "" {
		if rel, err := filepath.Rel(top, real); err == nil && filepath.IsLocal(rel) {
			sd.real = real
			sd.realRel = filepath.ToSlash(rel)
			if sd.realRel == "." {
				sd.realRel = ""
			}
		}
	}
	// Named directly, the start is judged by name, as Cline judges a
	// directory it lists or searches: a rule for directories only
	// ("private/") leaves it open and excludes every entry the walk finds
	// below it. Reached through a link swapped in, it is judged as the
	// directory it is, and refused.
	if exclude != nil && sd.realRel != "" && exclude(sd.realRel, sd.realRel != start) {
		r.Close()
		return nil, &ExcludedError{Path: start, Real: sd.realRel}
	}
	return sd, nil
}

// judge adapts exclude, which the walk calls with paths below the start as
// named, to judge them where they really are.
func (sd *startDir) judge(start string, exclude func(string, bool) bool) func(string, bool) bool {
	if exclude == nil || sd.realRel == start {
		return exclude
	}
	return func(rel string, isDir bool) bool {
		return exclude(join(sd.realRel, strings.TrimPrefix(strings.TrimPrefix(rel, start), "/")), isDir)
	}
}

// afterListing, when set (by tests), runs after a walk listed a directory
// and before it opens any entry: the moment a swapped-in link would have
// to win, made deterministic.
var afterListing func(rel string)

func listed(rel string) {
	if afterListing != nil {
		afterListing(rel)
	}
}

// childOf is the real path an entry of the directory at real must have;
// "" when real is unknown.
func childOf(real, name string) string {
	if real == "" {
		return ""
	}
	return real + "/" + name
}

// isAt reports whether the handle f is the entry want (an absolute real
// path), not what a link swapped in for it leads to. An unknown want or an
// unnamed handle passes.
func isAt(f *os.File, want string) bool {
	if want == "" {
		return true
	}
	got, err := fdpath.Of(f)
	return err != nil || got == want
}
