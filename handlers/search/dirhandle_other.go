//go:build !linux

package search

import (
	"os"
	"syscall"
)

// dirHandle is an open directory of a walk: its handle as an *os.Root,
// the directory itself, and where it must really be ("" when unknown).
type dirHandle struct {
	root *os.Root
	dir  *os.File
	real string
}

// topHandle opens the start directory of a walk, checked where it really
// is; the handle takes sd.root over.
func topHandle(sd *startDir) (dirHandle, error) {
	f, err := sd.root.Open(".")
	if err != nil {
		sd.root.Close()
		return dirHandle{}, err
	}
	if !isAt(f, sd.real) {
		f.Close()
		sd.root.Close()
		return dirHandle{}, errNotAt
	}
	return dirHandle{root: sd.root, dir: f, real: sd.real}, nil
}

// child opens the subdirectory name, which must really be that entry.
func (h dirHandle) child(name string) (dirHandle, error) {
	r, err := h.root.OpenRoot(name)
	if err != nil {
		return dirHandle{}, err
	}
	real := childOf(h.real, name)
	f, err := r.Open(".")
	if err != nil {
		r.Close()
		return dirHandle{}, err
	}
	if !isAt(f, real) {
		f.Close()
		r.Close()
		return dirHandle{}, errNotAt
	}
	return dirHandle{root: r, dir: f, real: real}, nil
}

// list reads the directory's entries, sorted by name.
func (h dirHandle) list() ([]dirent, error) {
	return sortedEntries(readDirTyped(h.dir))
}

// openFile opens the entry name, which must really be that entry, and
// stamps it.
func (h dirHandle) openFile(name string) (*entryFile, error) {
	// O_NONBLOCK: an entry swapped for a FIFO after listing must not hang.
	f, err := h.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if !isAt(f, childOf(h.real, name)) {
		f.Close()
		return nil, errNotAt
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &entryFile{File: f, st: stampOf(fi)}, nil
}

// lstat stamps the entry name without following a symbolic link.
func (h dirHandle) lstat(name string) (stamp, error) {
	fi, err := h.root.Lstat(name)
	if err != nil {
		return stamp{}, err
	}
	return stampOf(fi), nil
}

// stat stamps the directory itself.
func (h dirHandle) stat() (stamp, error) {
	fi, err := h.dir.Stat()
	if err != nil {
		return stamp{}, err
	}
	return stampOf(fi), nil
}

func (h dirHandle) close() {
	h.dir.Close()
	h.root.Close()
}
