package tool

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstat is Root.Lstat of rel in one fstatat from the workspace's
// directory instead of an open of each component of the path: a kept
// answer checks every directory its walk read (BenchmarkHardLinkCache,
// ./coordinator/policy/; docs/benchmarks.md). fstatat follows a symlink
// met on the way, even out of the workspace, where Root refuses: a stamp
// only compares an entry's identity and times, and the same inode is the
// same directory (with the same entries) or file whichever path reaches
// it. The stamps are checked in the order they were taken, parents
// first, so a stamped entry below a stamped directory is reached through
// directories that stood. A root reached now through a link out of the
// workspace is one the walk would not enter: its kept answer hides more,
// not less. Any failure other than a missing component is left to Root.
func (w *Workspace) lstat(rel string) (fs.FileInfo, error) {
	if w.dir != nil {
		info := &plainInfo{name: rel}
		err := unix.Fstatat(w.dirFd, rel, (*unix.Stat_t)(unsafe.Pointer(&info.st)), unix.AT_SYMLINK_NOFOLLOW)
		if err == nil {
			return info, nil
		}
		if err == unix.ENOENT {
			return nil, &fs.PathError{Op: "lstat", Path: rel, Err: fs.ErrNotExist}
		}
	}
	return w.Root.Lstat(filepath.FromSlash(rel))
}

// ctimeOf is the entry's change time.
func ctimeOf(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
