//go:build linux

package helper

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Landlock only grants: it cannot take a subtree back from a grant on its
// parent. To keep hidden paths out, the grants are made on the siblings
// along each hidden path instead of on their common parent; the
// directories on the way get the listing right only.
//
// A grant is made on the file a descriptor refers to, and every
// descriptor is opened component by component, each relative to its
// parent's, with O_NOFOLLOW: a symlink among the siblings gets no grant
// at all (a grant on it would be one on its target, $HOME say), and one
// on the way to a granted path makes that grant fail closed. A link still
// works where its target is granted on its own: Landlock judges the file
// a path resolves to.

// grant grants access beneath path; nothing when path is missing or a
// link, or a link is on its way.
func (r ruleset) grant(path string, access uint64) error {
	fd, err := openNoFollow(path, unix.O_PATH)
	if err != nil {
		return nil // nothing to grant: missing, or reached through a link
	}
	defer unix.Close(fd)
	return r.addFD(fd, access)
}

// addFD grants access beneath fd's file, unless that is a link.
func (r ruleset) addFD(fd int, access uint64) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return nil
	case unix.S_IFDIR:
		return r.add(fd, access, true)
	}
	return r.add(fd, access, false)
}

// grantExcept grants access beneath root but the hidden paths.
func (r ruleset) grantExcept(root string, hidden []string, access uint64) error {
	inside := outermost(root, hidden)
	if len(inside) == 0 {
		return r.grant(root, access)
	}
	ancestors := map[string]bool{}
	for _, h := range inside {
		for d := filepath.Dir(h); within(d, root); d = filepath.Dir(d) {
			ancestors[d] = true
			if d == root || d == "/" {
				break
			}
		}
	}
	skip := func(p string) bool {
		if ancestors[p] {
			return true // has its own listing grant and its siblings'
		}
		for _, h := range inside {
			if within(p, h) {
				return true
			}
		}
		return false
	}
	for d := range ancestors {
		if err := r.grantEntries(d, skip, access); err != nil {
			return err
		}
	}
	return nil
}

// outermost is the hidden paths below root, leaving out those below
// another: a path inside a hidden one is hidden with it, and listing its
// own parents' entries would grant each entry of a hidden directory one
// by one (a masked /tmp holding masked directories: 10,000 entries took
// 100 ms a run, BenchmarkSandboxedTrue/landlock in internal/sandbox).
func outermost(root string, hidden []string) []string {
	var inside []string
	for _, h := range hidden {
		if h == root || !within(h, root) {
			continue
		}
		nested := false
		for _, g := range hidden {
			if g != h && g != root && within(g, root) && within(h, g) {
				nested = true
				break
			}
		}
		if !nested && !slices.Contains(inside, h) {
			inside = append(inside, h)
		}
	}
	return inside
}

// grantEntries grants listing dir, and access beneath each of its entries
// but those skip names.
func (r ruleset) grantEntries(dir string, skip func(string) bool, access uint64) error {
	fd, err := openNoFollow(dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil // missing, or reached through a link: no grant
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	if err := r.add(fd, ll.AccessFSReadDir, true); err != nil {
		return err
	}
	names, _ := f.Readdirnames(-1) // a listing cut short grants less
	for _, name := range names {
		if skip(filepath.Join(dir, name)) {
			continue
		}
		efd, err := unix.Openat(fd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // gone since the listing
		}
		err = r.addFD(efd, access)
		_ = unix.Close(efd)
		if err != nil {
			return err
		}
	}
	return nil
}

// openNoFollow opens the absolute path with flags, walking it from "/"
// one component at a time, each opened relative to its parent with
// O_NOFOLLOW: it fails (ELOOP, ENOTDIR) where a directory on the way is
// a link, and with O_PATH it opens a final link itself, not its target.
func openNoFollow(path string, flags int) (int, error) {
	if !filepath.IsAbs(path) {
		return -1, errors.New("not an absolute path: " + path)
	}
	parts := strings.Split(strings.TrimPrefix(filepath.Clean(path), "/"), "/")
	if parts[0] == "" {
		return unix.Open("/", flags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for i, name := range parts {
		fl := unix.O_PATH | unix.O_DIRECTORY
		if i == len(parts)-1 {
			fl = flags
		}
		next, err := unix.Openat(fd, name, fl|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		_ = unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
