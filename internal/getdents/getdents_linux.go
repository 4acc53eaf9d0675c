package getdents

import (
	"bytes"
	"io/fs"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Buffers recycles 32 KiB getdents64 buffers, one per directory listed
// (BenchmarkSearchBuffers, ./handlers/search/, docs/benchmarks.md).
var Buffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Read fills buf with the next records of the directory fd, retrying
// when a signal interrupts the call; it reports 0 at the end.
func Read(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Getdents(fd, buf)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// linux_dirent64 layout: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
const (
	reclenOff = 16
	typeOff   = 18
	nameOff   = 19
)

// Records calls f with the name and d_type of each record of b, a
// buffer Read filled, "." and ".." left out. name is b's own bytes.
func Records(b []byte, f func(name []byte, dtype byte)) {
	for len(b) >= nameOff {
		reclen := int(*(*uint16)(unsafe.Pointer(&b[reclenOff])))
		if reclen < nameOff || reclen > len(b) {
			break
		}
		rec := b[:reclen]
		b = b[reclen:]
		name := rec[nameOff:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		f(name, rec[typeOff])
	}
}

// Mode is the type bits of the entry name of the directory fd, as
// fs.FileMode has them, taken from its d_type; a type the file system
// does not report (DT_UNKNOWN) is taken from one fstatat, and an entry
// that cannot be stat'ed is fs.ModeIrregular.
func Mode(fd int, dtype byte, name string) fs.FileMode {
	// A d_type is its stat mode's S_IFMT bits shifted down by 12.
	if m, ok := statType(uint32(dtype) << 12); ok && dtype <= unix.S_IFMT>>12 {
		return m
	}
	var st unix.Stat_t
	if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return fs.ModeIrregular
	}
	m, _ := statType(st.Mode) // a type os does not know is 0, as os has it
	return m
}

// statType is the type bits of a stat mode, as package os maps them,
// and whether the mode has one of the seven types.
func statType(mode uint32) (fs.FileMode, bool) {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0, true
	case unix.S_IFDIR:
		return fs.ModeDir, true
	case unix.S_IFLNK:
		return fs.ModeSymlink, true
	case unix.S_IFIFO:
		return fs.ModeNamedPipe, true
	case unix.S_IFSOCK:
		return fs.ModeSocket, true
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.S_IFBLK:
		return fs.ModeDevice, true
	}
	return 0, false
}
