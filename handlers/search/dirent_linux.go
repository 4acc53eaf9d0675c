package search

import (
	"os"
	"runtime"
	"strings"

	"github.com/toolgate/toolgate/internal/getdents"
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
	bp := getdents.Buffers.Get().(*[]byte)
	defer getdents.Buffers.Put(bp)
	buf := *bp
	var out []dirent
	for {
		n, err := getdents.Read(fd, buf)
		if err != nil || n <= 0 {
			return out, err
		}
		out = parseDirents(fd, buf[:n], out)
	}
}

// parseDirents appends the entries of the records b to out. The names of
// one buffer share one string: one allocation, not one per entry.
func parseDirents(fd int, b []byte, out []dirent) []dirent {
	n := 0
	getdents.Records(b, func(name []byte, _ byte) { n += len(name) })
	var all strings.Builder
	all.Grow(n)
	getdents.Records(b, func(name []byte, _ byte) { all.Write(name) })
	names := all.String()
	getdents.Records(b, func(name []byte, dtype byte) {
		var s string
		s, names = names[:len(name)], names[len(name):]
		out = append(out, dirent{name: s, typ: getdents.Mode(fd, dtype, s)})
	})
	return out
}
