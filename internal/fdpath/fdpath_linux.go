package fdpath

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Of returns the absolute path of the file f refers to, as the kernel
// resolved it when f was opened (the /proc/self/fd link).
func Of(f *os.File) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
}

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
