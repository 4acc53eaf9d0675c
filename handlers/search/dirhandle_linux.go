package search

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory of a walk, held as a bare descriptor.
// Each one below the start is opened from its parent's descriptor by name
// with O_NOFOLLOW, so it is the very entry the walk listed (a link swapped
// in for it fails to open) and needs no check of its real path. An
// *os.Root and an *os.File per directory cost an openat of ".", four
// fcntl, an epoll registration, a readlink of /proc/self/fd and their
// allocations: a sixth of a cold search of Go's source tree
// (BenchmarkSearchGoTree, BenchmarkFirstSearch; docs/benchmarks.md).
type dirHandle struct {
	fd int
}

// topHandle opens the start directory of a walk, checked where it really
// is, and closes sd.root.
func topHandle(sd *startDir) (dirHandle, error) {
	defer sd.root.Close()
	f, err := sd.root.Open(".")
	if err != nil {
		return dirHandle{}, err
	}
	defer f.Close()
	if !isAt(f, sd.real) {
		return dirHandle{}, errNotAt
	}
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	runtime.KeepAlive(f)
	if err != nil {
		return dirHandle{}, err
	}
	return dirHandle{fd: fd}, nil
}

// child opens the subdirectory name, which must be that very entry.
func (h dirHandle) child(name string) (dirHandle, error) {
	fd, err := openatRetry(h.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		return dirHandle{}, err
	}
	return dirHandle{fd: fd}, nil
}

// list reads the directory's entries, sorted by name.
func (h dirHandle) list() ([]dirent, error) {
	return sortedEntries(readDirFD(h.fd))
}

// openFile opens the entry name and stamps it. O_NOFOLLOW makes the
// opened file that very entry: a link swapped in for it after the listing
// fails to open (ELOOP) instead of leading elsewhere. O_NONBLOCK: an
// entry swapped for a FIFO must not hang.
func (h dirHandle) openFile(name string) (*entryFile, error) {
	fd, err := openatRetry(h.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &entryFile{fd: fd, st: stampOfUnix(&st)}, nil
}

// lstat stamps the entry name without following a symbolic link.
func (h dirHandle) lstat(name string) (stamp, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(h.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return stamp{}, err
	}
	return stampOfUnix(&st), nil
}

// stat stamps the directory itself.
func (h dirHandle) stat() (stamp, error) {
	var st unix.Stat_t
	if err := unix.Fstat(h.fd, &st); err != nil {
		return stamp{}, err
	}
	return stampOfUnix(&st), nil
}

func (h dirHandle) close() { unix.Close(h.fd) }

func stampOfUnix(st *unix.Stat_t) stamp {
	return stamp{
		ino: int64(st.Ino), size: st.Size, mode: st.Mode,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}
}
