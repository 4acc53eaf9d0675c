package search

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// dirent is a directory entry with the type its directory listing gave.
type dirent struct {
	name string
	typ  fs.FileMode // type bits only
}

// Name is the entry's base name.
func (d dirent) Name() string { return d.name }

// Type is the entry's type bits (fs.ModeDir, fs.ModeSymlink, ...; 0 for a
// regular file).
func (d dirent) Type() fs.FileMode { return d.typ }

// errNotAt refuses a directory opened through a link swapped in for it.
var errNotAt = errors.New("not the directory listed")

// listDirSorted lists the directory name of r sorted by name; an
// unreadable directory is empty, as ripgrep skips it. want is the real
// path the opened directory must have ("" for any), else errNotAt.
func listDirSorted(r *os.Root, name, want string) ([]dirent, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !isAt(f, want) {
		return nil, errNotAt
	}
	return sortedEntries(readDirTyped(f))
}

// sortedEntries sorts a listing by name.
func sortedEntries(entries []dirent, err error) ([]dirent, error) {
	slices.SortFunc(entries, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	return entries, err
}
