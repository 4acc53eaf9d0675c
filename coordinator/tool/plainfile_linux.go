package tool

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/nowait"
	"golang.org/x/sys/unix"
)

// A plain open is a workspace file opened by OpenPlain: resolved in one
// system call beneath the workspace's directory, through no symlink, and
// read through its bare descriptor. os.Root opens a path one component
// at a time, and makes an os.File of the result (an attempt to register
// it with the poller, a finalizer, several allocations): for a read of a
// small file that was about a third of the handler's time, and a nested
// path cost one open and one close more per directory
// (BenchmarkOpenPlain, ./handlers/; docs/benchmarks.md). Any path that
// goes through a symlink, and any failure at all, is left to os.Root, so
// that its rules and its error messages stay the only ones.

// plainHow is how OpenPlain opens: for reading, non-blocking (a FIFO
// opens at once, to be refused as not regular, as os.Root's open in
// handlers does), beneath the directory, through no symlink at all.
var plainHow = unix.OpenHow{
	Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC,
	Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
}

// OpenPlain opens rel, a path as Rel returns it, for reading when no
// component of it is a symlink, and fstats it. Its error means only
// that the caller must open rel through Root instead: the path goes
// through a symlink (ELOOP), does not exist, or the kernel cannot do it
// (errors.ErrUnsupported).
func (w *Workspace) OpenPlain(rel string) (*PlainFile, error) {
	if w.dir == nil || w.noPlain.Load() {
		return nil, errors.ErrUnsupported
	}
	if w.nowait {
		if f := w.openNowait(rel); f != nil {
			return f, nil
		}
	}
	fd, err := w.openat2(rel, &plainHow)
	if err != nil {
		return nil, err
	}
	f := &PlainFile{fd: fd, info: plainInfo{name: rel}}
	for {
		err = syscall.Fstat(fd, &f.info.st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// nowaitHow is plainHow on the workspace's own mount alone: a file
// opened so is on the local file system the workspace's directory is
// on, whose attributes an fstat finds in memory.
var nowaitHow = unix.OpenHow{Flags: plainHow.Flags, Resolve: plainHow.Resolve | unix.RESOLVE_NO_XDEV}

// openNowait is OpenPlain's open and fstat made without telling the
// scheduler (internal/nowait): the path's every component cached, on
// the workspace's mount. nil when they cannot be made so: OpenPlain
// then opens the ordinary way, which gives any error.
func (w *Workspace) openNowait(rel string) *PlainFile {
	fd, err := nowait.Openat2Cached(w.dirFd, rel, &nowaitHow)
	if err != nil {
		return nil
	}
	f := &PlainFile{fd: fd, nowait: true, info: plainInfo{name: rel}}
	if nowait.Fstat(fd, &f.info.st) != nil {
		f.Close()
		return nil
	}
	return f
}

// onLocalFileSystem reports whether the directory fd is on a file
// system of this machine's disks or memory (watchedFileSystems).
func onLocalFileSystem(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) == nil && slices.Contains(watchedFileSystems, int64(st.Type))
}

// plainPathHow is how PlainPath looks a path up: a handle on the path
// alone (O_PATH), resolved as plainHow resolves.
var plainPathHow = unix.OpenHow{
	Flags:   unix.O_PATH | unix.O_CLOEXEC,
	Resolve: plainHow.Resolve,
}

// PlainPath reports whether rel, slash-separated, names something in
// the workspace through no symlink: then the workspace-relative path
// where it really is, is rel cleaned. One openat2 and a close instead of
// an lstat of each component from / (BenchmarkPolicyStage/read_file,
// ./coordinator/; docs/benchmarks.md). false tells nothing: the path
// goes through a symlink, does not exist, or the kernel cannot say.
func (w *Workspace) PlainPath(rel string) bool {
	if w.dir == nil || w.noPlain.Load() {
		return false
	}
	fd, err := w.openat2(rel, &plainPathHow)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// openat2 opens rel beneath the workspace's directory as how says,
// again when a signal interrupts it; a kernel that cannot do it is not
// asked again.
func (w *Workspace) openat2(rel string, how *unix.OpenHow) (int, error) {
	for {
		fd, err := unix.Openat2(w.dirFd, rel, how)
		switch err {
		case unix.EINTR:
			continue
		case unix.ENOSYS, unix.EPERM, unix.E2BIG:
			// No openat2, a seccomp filter refusing it, or a how
			// this kernel does not know: not worth asking again.
			// (EINVAL is not among them: a file system may refuse
			// one name so, and that says nothing of the next.)
			w.noPlain.Store(true)
		}
		return fd, err
	}
}

// PlainFile is a workspace file opened by OpenPlain, for reading. Its
// descriptor has no finalizer: the caller must Close it.
type PlainFile struct {
	fd     int
	nowait bool // opened by openNowait: reads try the page cache first
	info   plainInfo
}

// Read reads from the file's current offset.
func (f *PlainFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.nowait {
		if n, err := nowait.Read(f.fd, p); err == nil {
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
	}
	for {
		n, err := syscall.Read(f.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: f.info.name, Err: err}
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close closes the descriptor.
func (f *PlainFile) Close() error {
	if f.fd < 0 {
		return fs.ErrClosed
	}
	var err error
	if f.nowait {
		err = nowait.Close(f.fd)
	} else {
		err = syscall.Close(f.fd)
	}
	f.fd = -1
	return err
}

// Info is what fstat(2) said of the file on opening.
func (f *PlainFile) Info() fs.FileInfo { return &f.info }

// plainInfo is fs.FileInfo made from an fstat, as os.File.Stat makes it
// (Sys is the *syscall.Stat_t).
type plainInfo struct {
	name string
	st   syscall.Stat_t
}

func (i *plainInfo) Name() string       { return path.Base(i.name) }
func (i *plainInfo) Size() int64        { return i.st.Size }
func (i *plainInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }
func (i *plainInfo) IsDir() bool        { return i.Mode().IsDir() }
func (i *plainInfo) Sys() any           { return &i.st }

// Mode maps the stat mode as package os does.
func (i *plainInfo) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if i.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if i.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if i.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
