package codedefs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/toolgate/toolgate/handlers/search"
	"github.com/toolgate/toolgate/internal/fdpath"
)

// source is one workspace file selected for parsing.
type source struct {
	name  string   // base name, as printed
	ext   string   // lower-case extension, which picks the ctags parser
	data  []byte   // the bytes read through the root
	lines []string // data split on "\n"
}

var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
)

// readSources lists dir's top-level source files in name order, drops the
// excluded ones, caps the count and reads each through the root. Files that
// are not regular (symlinks, devices, directories) are never opened.
func (l *Lister) readSources(root *os.Root, dir string, exclude func(string, bool) bool) ([]source, []string, error) {
	rel := path.Clean(filepath.ToSlash(dir))
	if dir == "" {
		rel = "."
	}
	sub, err := root.OpenRoot(rel)
	if err != nil {
		return nil, nil, fmt.Errorf("list_code_definition_names: directory %q does not exist or cannot be read: %w", dir, err)
	}
	defer sub.Close()
	real := realRel(root, sub, rel)
	if real != rel && real != "." && exclude != nil && exclude(real, true) {
		return nil, nil, &search.ExcludedError{Path: rel, Real: real}
	}
	names, err := candidates(sub, real, exclude)
	if err != nil {
		return nil, nil, fmt.Errorf("list_code_definition_names: directory %q cannot be listed: %w", dir, err)
	}
	var notes, tooLarge, unreadable []string
	if maxFiles := orDefault(l.MaxFiles, DefaultMaxFiles); len(names) > maxFiles {
		notes = append(notes, fmt.Sprintf("(Only the first %d of %d source files were parsed.)", maxFiles, len(names)))
		names = names[:maxFiles]
	}
	maxBytes := orDefault(l.MaxFileBytes, DefaultMaxFileBytes)
	var srcs []source
	for _, name := range names {
		data, err := readRegular(sub, name, maxBytes)
		switch {
		case errors.Is(err, errNotRegular):
			// Swapped for a symlink or other non-file after listing.
		case errors.Is(err, errTooLarge):
			tooLarge = append(tooLarge, name)
		case err != nil:
			unreadable = append(unreadable, name)
		default:
			ext, _ := sourceExt(name)
			srcs = append(srcs, source{name: name, ext: ext, data: data, lines: strings.Split(string(data), "\n")})
		}
	}
	if len(tooLarge) > 0 {
		notes = append(notes, fmt.Sprintf("(Not parsed, larger than %d bytes: %s)", maxBytes, strings.Join(tooLarge, ", ")))
	}
	if len(unreadable) > 0 {
		notes = append(notes, fmt.Sprintf("(Could not be read: %s)", strings.Join(unreadable, ", ")))
	}
	return srcs, notes, nil
}

// realRel is the path of sub from root where sub's directory really is,
// from the open handles: the directory named rel may have been swapped for
// a link to another one after the caller judged the name, and the exclude
// rules protect files where they are. rel when the system cannot tell.
func realRel(root, sub *os.Root, rel string) string {
	top, real := fdpath.RootPath(root), fdpath.RootPath(sub)
	if top == "" || real == "" {
		return rel
	}
	r, err := filepath.Rel(top, real)
	if err != nil || !filepath.IsLocal(r) {
		return rel
	}
	return filepath.ToSlash(r)
}

// candidates returns the names of the regular source files directly in sub,
// sorted, without those exclude rejects. rel is sub's real path from the
// root. readRegular makes sure each file read is the entry listed here.
func candidates(sub *os.Root, rel string, exclude func(string, bool) bool) ([]string, error) {
	d, err := sub.Open(".")
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if _, ok := sourceExt(e.Name()); !ok {
			continue
		}
		if exclude != nil && exclude(path.Join(rel, e.Name()), false) {
			continue
		}
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names, nil
}

// readRegular reads the regular file name in sub, refusing anything else. The
// Lstat before and the Stat of the opened file must agree, so a symlink
// swapped in between is caught; O_NONBLOCK keeps a FIFO swapped in from
// blocking the open.
func readRegular(sub *os.Root, name string, maxBytes int64) ([]byte, error) {
	before, err := sub.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := sub.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !after.Mode().IsRegular() || !os.SameFile(before, after) {
		return nil, errNotRegular
	}
	if after.Size() > maxBytes {
		return nil, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, errTooLarge
	}
	return data, nil
}
