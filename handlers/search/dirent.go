package search

import (
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

// listDirSorted lists the directory name of r sorted by name; an
// unreadable directory is empty, as ripgrep skips it.
func listDirSorted(r *os.Root, name string) ([]dirent, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := readDirTyped(f)
	slices.SortFunc(entries, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	return entries, err
}
