package search

import (
	"bytes"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readDirTyped lists an open directory with getdents64 and takes each
// entry's type from d_type. os.File.ReadDir cannot be used on directories
// opened through an os.Root: it lstats every entry, which doubles the cost
// of listing a large tree. Entries whose type the file system does not
// report (DT_UNKNOWN) are stamped with one fstatat.
func readDirTyped(f *os.File) ([]dirent, error) {
	defer runtime.KeepAlive(f)
	return readDirFD(int(f.Fd()))
}

// readDirFD is readDirTyped on a bare descriptor.
func readDirFD(fd int) ([]dirent, error) {
	bp := direntBuffers.Get().(*[]byte)
	defer direntBuffers.Put(bp)
	buf := *bp
	var out []dirent
	for {
		n, err := unix.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		out = parseDirents(fd, buf[:n], out)
	}
}

// direntBuffers recycles the getdents buffers, one per directory read
// (BenchmarkSearchBuffers, ./handlers/search/, docs/benchmarks.md).
var direntBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// linux_dirent64 layout: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
const direntNameOff = 19

func parseDirents(fd int, b []byte, out []dirent) []dirent {
	// The names of one buffer share one string: one allocation, not one
	// per entry.
	n := 0
	forDirents(b, func(_ []byte, name []byte) { n += len(name) })
	var all strings.Builder
	all.Grow(n)
	forDirents(b, func(_ []byte, name []byte) { all.Write(name) })
	names := all.String()
	forDirents(b, func(rec []byte, name []byte) {
		var s string
		s, names = names[:len(name)], names[len(name):]
		out = append(out, dirent{name: s, typ: direntType(fd, rec[18], name)})
	})
	return out
}

// forDirents calls f with each record of b and its name, "." and ".." left
// out.
func forDirents(b []byte, f func(rec, name []byte)) {
	for len(b) >= direntNameOff {
		reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
		if reclen < direntNameOff || reclen > len(b) {
			break
		}
		rec := b[:reclen]
		b = b[reclen:]
		name := rec[direntNameOff:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		f(rec, name)
	}
}

func direntType(fd int, t byte, name []byte) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_UNKNOWN:
		var st unix.Stat_t
		if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return fs.ModeIrregular
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			return 0
		case unix.S_IFDIR:
			return fs.ModeDir
		case unix.S_IFLNK:
			return fs.ModeSymlink
		}
	}
	return fs.ModeIrregular
}
