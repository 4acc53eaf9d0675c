package search

import (
	"io"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// entryFile is a regular file a search reads, held as a bare descriptor:
// no *os.File, poller registration or allocation per file.
type entryFile struct {
	fd int
	st stamp
}

// openEntry opens the entry name of the directory dir, which the caller
// checked is the directory it listed (see isAt; so its real path is not
// needed here), and stamps it. O_NOFOLLOW
// makes the opened file that very entry: a link swapped in for it after
// the listing fails to open (ELOOP) instead of leading elsewhere, so no
// per-file check of the handle's real path is needed. O_NONBLOCK: an entry
// swapped for a FIFO must not hang.
func openEntry(_ *os.Root, dir *os.File, _, name string) (*entryFile, error) {
	fd, err := openatRetry(int(dir.Fd()), name)
	runtime.KeepAlive(dir)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &entryFile{fd: fd, st: stamp{
		ino: int64(st.Ino), size: st.Size, mode: st.Mode,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}}, nil
}

func openatRetry(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func (f *entryFile) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *entryFile) Close() error { return unix.Close(f.fd) }
