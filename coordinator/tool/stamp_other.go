//go:build !linux

package tool

import (
	"io/fs"
	"path/filepath"
	"syscall"
)

// lstat is Root.Lstat: only Linux has openat2.
func (w *Workspace) lstat(rel string) (fs.FileInfo, error) {
	return w.Root.Lstat(filepath.FromSlash(rel))
}

// ctimeOf is 0: the stamp's change time is Linux's only; the other
// fields still stamp what they stamp.
func ctimeOf(*syscall.Stat_t) int64 { return 0 }
