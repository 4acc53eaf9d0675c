package search

import (
	"io"

	"golang.org/x/sys/unix"
)

// entryFile is a regular file a search reads, held as a bare descriptor:
// no *os.File, poller registration or allocation per file.
type entryFile struct {
	fd int
	st stamp
}

func openatRetry(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
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
