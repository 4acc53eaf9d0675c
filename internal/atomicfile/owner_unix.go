//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives the new inode the old file's owner when it differs, as
// an edit by a privileged server should not take ownership of the file.
// Failure is ignored: an unprivileged process cannot give files away and
// the file then belongs to the writer, as with any editor.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok || (int(st.Uid) == os.Getuid() && int(st.Gid) == os.Getgid()) {
		return
	}
	_ = f.Chown(int(st.Uid), int(st.Gid))
}
