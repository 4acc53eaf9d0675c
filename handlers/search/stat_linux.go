package search

import (
	"os"

	"golang.org/x/sys/unix"
)

// statAt stamps the entry name of the open directory dir without following
// a symbolic link: one fstatat, no path walk.
func statAt(_ *os.Root, dir *os.File, name string) (stamp, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return stamp{}, err
	}
	return stamp{
		ino: int64(st.Ino), size: st.Size, mode: st.Mode,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, nil
}
