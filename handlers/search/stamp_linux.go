package search

import (
	"io/fs"
	"syscall"
)

// stampOf is the stamp of a file from Linux's stat: its inode number and
// change time too, so that a replacement is seen even when size and
// modification time are kept.
func stampOf(fi fs.FileInfo) stamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stampOfInfo(fi)
	}
	return stamp{
		ino: int64(st.Ino), size: st.Size, mode: st.Mode,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}
}
