package tool

import (
	"errors"
	"io/fs"
	"syscall"
	"time"
)

// Stamp is the state of a workspace entry when a listing read it (a
// directory) or looked at it (a file), for a listing kept while what it
// read stands: any entry added to, removed from or renamed in a
// directory changes its modification time; a new name of a file
// changes its count of names. A directory changed less than StampRacy
// before the listing proves nothing (Recent): such a listing is not kept.
type Stamp struct {
	Path   string // slash-separated, relative to the workspace
	Absent bool   // the path named nothing
	Dev    uint64
	Ino    uint64
	Nlink  uint64
	Mtime  int64
	Ctime  int64 // a change of mode (a directory made readable) too
}

// StampRacy is how recent a directory's change may be for a listing
// that read it to be kept: more than the coarsest clock a file system
// stamps times with (FAT's two seconds), as the ignore rules' watcher
// allows (git's "racily clean" rule).
const StampRacy = 2 * time.Second

// StampOf is the stamp of the entry at path that info describes.
func StampOf(path string, info fs.FileInfo) Stamp {
	s := Stamp{Path: path, Mtime: info.ModTime().UnixNano()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		s.Dev, s.Ino, s.Nlink = uint64(st.Dev), st.Ino, uint64(st.Nlink)
		s.Ctime = ctimeOf(st)
	}
	return s
}

// Recent reports a stamp whose modification time is at or after since:
// a change in the same tick of a coarse clock would leave it unchanged.
func (s Stamp) Recent(since time.Time) bool {
	return !s.Absent && s.Mtime >= since.UnixNano()
}

// StampPath stamps the entry at path (not following a final symbolic
// link); a path naming nothing gets an Absent stamp.
func (w *Workspace) StampPath(path string) (Stamp, error) {
	info, err := w.lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Stamp{Path: path, Absent: true}, nil
	}
	if err != nil {
		return Stamp{}, err
	}
	return StampOf(path, info), nil
}

// StampsStand reports whether every stamped entry is as it was.
func (w *Workspace) StampsStand(stamps []Stamp) bool {
	for _, s := range stamps {
		now, err := w.StampPath(s.Path)
		if err != nil || now != s {
			return false
		}
	}
	return true
}
