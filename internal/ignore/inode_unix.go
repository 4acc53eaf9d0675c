//go:build unix

package ignore

import (
	"io/fs"
	"syscall"
)

// inode returns the file's inode number, which tells a file replaced by
// rename apart from the old one even when size and time agree.
func inode(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
