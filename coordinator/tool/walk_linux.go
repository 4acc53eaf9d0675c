package tool

import (
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/toolgate/toolgate/internal/getdents"
)

// WalkEntries visits the entries under dir (workspace-relative,
// slash-separated; dir itself is not visited), depth first, not
// following symlinks, in the order the directories list them, until
// visit returns false. A directory is opened relative to its parent's
// descriptor and listed with getdents64, each entry's type taken from
// the listing: fs.WalkDir over Root.FS() opens each directory component
// by component and lstats every entry (BenchmarkWalkEntries,
// ./coordinator/tool/; docs/benchmarks.md). A directory that cannot be
// opened or read is skipped, as the callers' fs.WalkDir skipped it.
// d.Info() may be called only during its visit.
//
// It reports false, having visited nothing, when it cannot walk dir
// this way (dir goes through a symlink, is not a directory, or the
// workspace has no handle of its directory): the caller then walks
// through Root.
func (w *Workspace) WalkEntries(dir string, visit func(p string, d fs.DirEntry) bool) bool {
	if w.dir == nil || w.noPlain.Load() {
		return false
	}
	fd, err := w.openat2(dir, &walkHow)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	walkFD(fd, prefix, visit)
	return true
}

// walkHow opens the directory a walk starts at as plainHow opens files.
var walkHow = unix.OpenHow{
	Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
	Resolve: plainHow.Resolve,
}

// walkFD visits the entries of the directory fd, named with prefix,
// and the directories below it; it reports false once visit has.
func walkFD(fd int, prefix string, visit func(p string, d fs.DirEntry) bool) bool {
	entries, _ := listDir(fd)
	for i := range entries {
		e := &entries[i]
		e.parent = fd
		p := prefix + e.name
		if !visit(p, e) {
			return false
		}
		if e.typ != fs.ModeDir {
			continue
		}
		sub, err := unix.Openat(fd, e.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		more := walkFD(sub, p+"/", visit)
		unix.Close(sub)
		if !more {
			return false
		}
	}
	return true
}

// walkEntry is a directory entry WalkEntries visits.
type walkEntry struct {
	parent int // the descriptor of its directory, open during the visit
	name   string
	typ    fs.FileMode
}

func (e *walkEntry) Name() string      { return e.name }
func (e *walkEntry) IsDir() bool       { return e.typ == fs.ModeDir }
func (e *walkEntry) Type() fs.FileMode { return e.typ }

// Info lstats the entry through its directory's descriptor.
func (e *walkEntry) Info() (fs.FileInfo, error) {
	info := &plainInfo{name: e.name}
	// unix.Stat_t and syscall.Stat_t are the same kernel struct stat.
	if err := unix.Fstatat(e.parent, e.name, (*unix.Stat_t)(unsafe.Pointer(&info.st)), unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: e.name, Err: err}
	}
	return info, nil
}

// listDir lists the directory fd with getdents64, "." and ".." left
// out; an entry whose type the file system does not report is lstat'ed.
func listDir(fd int) ([]walkEntry, error) {
	bp := getdents.Buffers.Get().(*[]byte)
	defer getdents.Buffers.Put(bp)
	var out []walkEntry
	for {
		n, err := getdents.Read(fd, *bp)
		if err != nil || n <= 0 {
			return out, err
		}
		getdents.Records((*bp)[:n], func(name []byte, dtype byte) {
			e := walkEntry{name: string(name)}
			e.typ = getdents.Mode(fd, dtype, e.name)
			out = append(out, e)
		})
	}
}
