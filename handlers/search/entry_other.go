//go:build !linux

package search

import (
	"os"
	"syscall"
)

// entryFile is a regular file a search reads.
type entryFile struct {
	*os.File
	st stamp
}

// openEntry opens the entry name of the directory root (opened as dir,
// really at dirReal), which must really be that entry (see isAt), and
// stamps it.
func openEntry(root *os.Root, _ *os.File, dirReal, name string) (*entryFile, error) {
	// O_NONBLOCK: an entry swapped for a FIFO after listing must not hang.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if !isAt(f, childOf(dirReal, name)) {
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
