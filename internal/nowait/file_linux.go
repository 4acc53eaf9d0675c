package nowait

import (
	"errors"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resolveCached is openat2's RESOLVE_CACHED (Linux 5.12): the open
// fails with EAGAIN unless every component of the path is in the
// kernel's caches, so it cannot wait on a disk or a server.
const resolveCached = 0x20

// ErrWouldWait is the answer of a call here that could only be made by
// waiting (or that the kernel or the file system cannot make without
// it): the caller makes it the ordinary way.
var ErrWouldWait = errors.New("nowait: the call would wait")

// Openat2Cached opens path beneath dirfd as how says, with
// RESOLVE_CACHED added; any failure is ErrWouldWait, for the caller's
// ordinary openat2 to give the answer (a path not cached, not there,
// refused: the ordinary call says which).
func Openat2Cached(dirfd int, path string, how *unix.OpenHow) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, ErrWouldWait
	}
	cached := *how
	cached.Resolve |= resolveCached
	fd, _, e := syscall.RawSyscall6(unix.SYS_OPENAT2, uintptr(dirfd), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(&cached)), unsafe.Sizeof(cached), 0, 0)
	if e != 0 {
		return -1, ErrWouldWait
	}
	return int(fd), nil
}

// Fstat is fstat(2) made raw: only for a file open on a local file
// system, whose attributes are in memory once it is open (a network
// file system may ask its server).
func Fstat(fd int, st *syscall.Stat_t) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0)
	if e != 0 {
		return e
	}
	return nil
}

// Read reads from fd's offset what the page cache already holds
// (preadv2 with RWF_NOWAIT, Linux 4.14): n bytes, 0 at the end of the
// file, or ErrWouldWait when the data is not cached, the file system
// cannot tell without waiting, or the read fails (the ordinary read
// then gives the error). A read that returns fewer bytes than
// asked is the part that was cached.
func Read(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	iov := unix.Iovec{Base: &p[0]}
	iov.SetLen(len(p))
	const atOffset = ^uintptr(0) // -1: the file's offset, moved by the read
	n, _, e := syscall.RawSyscall6(unix.SYS_PREADV2, uintptr(fd), uintptr(unsafe.Pointer(&iov)), 1,
		atOffset, atOffset, unix.RWF_NOWAIT)
	if e != 0 { // EAGAIN (not cached), EOPNOTSUPP (no RWF_NOWAIT here), any other
		return 0, ErrWouldWait
	}
	return int(n), nil
}

// Close is close(2) made raw: only for a file opened for reading on a
// local file system, whose release writes nothing back (a network file
// system may flush to its server, a written file may be synced).
func Close(fd int) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
