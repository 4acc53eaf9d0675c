package fdpath

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Of returns the absolute path of the file f refers to, as the kernel
// resolved it when f was opened (the /proc/self/fd link). A file or
// directory removed since is named where it was: the kernel adds
// " (deleted)" to the link then, which would make checks on the name
// judge another name than the one the file had.
func Of(f *os.File) (string, error) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return "", err
	}
	if trimmed, ok := strings.CutSuffix(p, deletedSuffix); ok {
		// A name may really end so; only a file with no links left is
		// one the kernel marked.
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) == nil && st.Nlink == 0 {
			return trimmed, nil
		}
	}
	return p, nil
}

// deletedSuffix is what the kernel adds to the /proc fd link of a file
// removed while open (fs/d_path.c).
const deletedSuffix = " (deleted)"

// Resolve returns the absolute path of the file or directory name refers
// to inside root, following symlinks (os.Root keeps them inside). It opens
// for reading with O_NONBLOCK, so a FIFO does not block. (O_PATH would need
// no read permission, but os.Root opens each component with O_NOFOLLOW,
// which with O_PATH opens a final symlink itself instead of following it.)
func Resolve(root *os.Root, name string) (string, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return Of(f)
}

// RootPath is the real path of root's directory, "" when it cannot be told.
func RootPath(root *os.Root) string {
	p, err := Resolve(root, ".")
	if err != nil {
		return ""
	}
	return p
}
