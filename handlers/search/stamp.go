package search

import (
	"io/fs"
	"strconv"
	"time"
)

// stamp identifies a version of a file or directory cheaply: a change of
// content, of the entry list or a replacement moves at least one field.
type stamp struct {
	ino, size    int64
	mtime, ctime int64 // nanoseconds
	mode         uint32
}

// The file type bits of a stamp's mode, as POSIX's st_mode holds them
// (Linux's S_IFMT and S_IFREG).
const (
	modeTypeMask = 0o170000
	modeRegular  = 0o100000
)

// stampOfInfo is the stamp of what any system's FileInfo tells: size,
// modification time, type and permission bits; no inode number or change
// time (zero), so a file replaced by another of the same size and
// modification time goes unseen. stampOf uses it where the system's own
// stat is not at hand.
func stampOfInfo(fi fs.FileInfo) stamp {
	mode := uint32(fi.Mode().Perm())
	if fi.Mode().IsRegular() {
		mode |= modeRegular
	}
	return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: mode}
}

// regular reports a regular file.
func (s stamp) regular() bool { return s.mode&modeTypeMask == modeRegular }

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
