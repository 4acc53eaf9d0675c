package search

import (
	"io/fs"
	"strconv"
	"syscall"
	"time"
)

// stamp identifies a version of a file or directory cheaply: a change of
// content, of the entry list or a replacement moves at least one field.
type stamp struct {
	ino, size    int64
	mtime, ctime int64 // nanoseconds
	mode         uint32
}

func stampOf(fi fs.FileInfo) stamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
	}
	return stampOfStat(st)
}

func stampOfStat(st *syscall.Stat_t) stamp {
	return stamp{
		ino: int64(st.Ino), size: st.Size, mode: st.Mode,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}
}

// regular reports a regular file.
func (s stamp) regular() bool { return s.mode&syscall.S_IFMT == syscall.S_IFREG }

// racy reports a stamp too close to when it was taken to prove that the
// content is what was read: a rewrite within the file system's clock tick
// can keep every field.
func (s stamp) racy(at time.Time, window time.Duration) bool {
	t := max(s.mtime, s.ctime)
	return at.UnixNano()-t < int64(window)
}

func (s stamp) key() string {
	return strconv.FormatInt(s.ino, 36) + ":" + strconv.FormatInt(s.size, 36) + ":" +
		strconv.FormatInt(s.mtime, 36) + ":" + strconv.FormatInt(s.ctime, 36) + ";"
}
