package tool

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// stampEvents are the events that change a stamp or what a stamped path
// leads to. On a directory: an entry made, removed or renamed in or out
// (its modification time, and what a path through it names), its own
// mode or times set (IN_ATTRIB), the directory itself removed or
// renamed. On a file: its names count, mode or times changed
// (IN_ATTRIB: a hard link made to it from a directory no watch covers
// is reported to the file's own watch only, not to its parent's), the
// file removed or renamed. A write to a file is not among them: no kept
// answer depends on a file's content. The kernel also queues
// IN_Q_OVERFLOW (events lost) and IN_IGNORED (a watch gone with its
// entry, or its file system unmounted) unasked: every queued event is a
// change. IN_DONT_FOLLOW watches a symbolic link itself, as the stamp
// (an lstat) looks at it.
const stampEvents = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW

// inotifyAddWatch adds a watch; tests make it fail.
var inotifyAddWatch = unix.InotifyAddWatch

// stampWatchLimit is how many watches one StampWatch may add: a
// sixteenth of the user's inotify watches (fs.inotify.max_user_watches),
// which the user's other programs (an editor's file watcher) share; a
// kept answer needing more polls its stamps. Tests lower it.
var stampWatchLimit = sync.OnceValue(func() int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 8192 / 16
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 16 {
		return 8192 / 16
	}
	return n / 16
})

// watchedFileSystems are the file systems whose every change passes
// through this kernel's VFS, so inotify reports it: local disks and
// memory. A network file system (NFS, SMB) changed from another machine,
// or a FUSE one changed by its daemon, reports nothing; their stamps
// are polled, as are those of any file system not listed.
var watchedFileSystems = []int64{
	unix.EXT4_SUPER_MAGIC, // ext2, ext3 and ext4 share it
	unix.XFS_SUPER_MAGIC,
	unix.BTRFS_SUPER_MAGIC,
	unix.TMPFS_MAGIC,
	unix.RAMFS_MAGIC,
	unix.OVERLAYFS_SUPER_MAGIC,
	unix.F2FS_SUPER_MAGIC,
	0x2fc12fc1, // ZFS
}

// watchTarget is an entry to watch: a stamped entry, or a directory
// above one (above), through which its path leads.
type watchTarget struct {
	path  string
	above bool
}

// watchStamps arms an inotify instance over stamps and returns it.
//
// What it watches: every stamped entry that exists (a directory the walk
// read, a denial's root, a denied file), and every directory on the way
// to each stamped path from the workspace's directory, so that an entry
// made where an Absent stamp named nothing, or a directory on the way
// renamed or replaced, is reported. The watches are added by paths
// beneath /proc/self/fd/N, N the workspace's directory descriptor: they
// reach the inodes the stamps' fstatat calls reach, even if the
// workspace's directory was renamed. They are added parents first, so
// that a path resolved for a child's watch goes through directories
// already watched: a change on the way after a parent's watch is queued
// on it. A directory above a stamp must be a directory itself
// (IN_ONLYDIR with IN_DONT_FOLLOW): a symbolic link on the way would
// lead through directories no watch covers, so the stamps are polled.
// An entry missing when its watch is added (an Absent stamp's parent,
// say) needs no watch: its parent's watch, added before, reports its
// making.
//
// The race: a change after the walk stamped an entry and before its
// watch was added queues no event. So once every watch is added the
// stamps are checked once (StampsStand); if they stand, a change after
// that check is queued on a watch, and one before it showed in the
// check (as the polled stamps show any change: StampRacy keeps a
// directory's coarse clock from hiding one). Only then is the instance trusted. The kernel queues an event
// in the system call that makes the change, so a check that finds no
// event queued has no change in flight behind it.
//
// Anything that keeps a watch from being complete polls the stamps: no
// workspace directory descriptor, more watches than stampWatchLimit, a
// file system not in watchedFileSystems, inotify_init1 or any
// inotify_add_watch failing (ENOSPC when the user's watches are used up,
// EACCES, ENOTDIR for a symbolic link on the way, EMFILE when the user's
// inotify instances are), or the stamps not standing once armed. One
// change inotify cannot report: a file system mounted on a watched
// directory in toolgate's own mount namespace (commands run in their
// own); only a process with the right to mount there can make it.
func (w *Workspace) watchStamps(stamps []Stamp) (int, error) {
	if w.dir == nil {
		return -1, errors.New("the workspace's directory is not open")
	}
	targets := watchTargets(stamps)
	if limit := stampWatchLimit(); len(targets) > limit {
		return -1, fmt.Errorf("%d entries to watch, more than %d", len(targets), limit)
	}
	// "/proc/self/fd/N/." resolves the descriptor's link as a
	// directory on the way, which IN_DONT_FOLLOW does not stop.
	base := "/proc/self/fd/" + strconv.Itoa(w.dirFd) + "/"
	full := func(p string) string { return base + p }
	if err := watchableFileSystems(stamps, targets, full); err != nil {
		return -1, err
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("inotify_init1: %w", err)
	}
	for _, t := range targets {
		mask := uint32(stampEvents)
		if t.above {
			mask |= unix.IN_ONLYDIR
		}
		_, err := inotifyAddWatch(fd, full(t.path), mask)
		if err == unix.ENOENT && t.path != "." {
			continue // its parent's watch reports its making
		}
		if err != nil {
			closeWatch(fd)
			return -1, fmt.Errorf("inotify_add_watch %s: %w", t.path, err)
		}
	}
	if !w.StampsStand(stamps) {
		closeWatch(fd)
		return -1, errors.New("the stamps changed before the watches were armed")
	}
	return fd, nil
}

// watchTargets are the entries to watch for stamps, parents before
// their children.
func watchTargets(stamps []Stamp) []watchTarget {
	above := map[string]bool{}
	stamped := map[string]bool{}
	for _, s := range stamps {
		if !s.Absent {
			stamped[s.Path] = true
		}
		for d := path.Dir(s.Path); ; d = path.Dir(d) {
			if above[d] {
				break // and every directory above it
			}
			above[d] = true
			if d == "." || d == "/" {
				break
			}
		}
	}
	var out []watchTarget
	for p := range above {
		out = append(out, watchTarget{path: p, above: true})
	}
	for p := range stamped {
		if !above[p] {
			out = append(out, watchTarget{path: p})
		}
	}
	slices.SortFunc(out, func(a, b watchTarget) int {
		if da, db := depth(a.path), depth(b.path); da != db {
			return da - db
		}
		return strings.Compare(a.path, b.path)
	})
	return out
}

// depth is how many directories below the workspace's a path is.
func depth(p string) int {
	if p == "." {
		return 0
	}
	return strings.Count(p, "/") + 1
}

// watchableFileSystems reports an error unless every target is on a
// file system in watchedFileSystems: one statfs for each device the
// stamps name, and one for each directory above them not stamped.
func watchableFileSystems(stamps []Stamp, targets []watchTarget, full func(string) string) error {
	devOf := map[string]uint64{}
	for _, s := range stamps {
		if !s.Absent {
			devOf[s.Path] = s.Dev
		}
	}
	checked := map[uint64]bool{}
	for _, t := range targets {
		dev, known := devOf[t.path]
		if known && checked[dev] {
			continue
		}
		var st unix.Statfs_t
		err := unix.Statfs(full(t.path), &st)
		if err == unix.ENOENT && t.path != "." {
			continue // not watched either (watchStamps)
		}
		if err != nil {
			return fmt.Errorf("statfs %s: %w", t.path, err)
		}
		if !slices.Contains(watchedFileSystems, int64(st.Type)) {
			return fmt.Errorf("%s is on a file system inotify may not see every change of (type %#x)", t.path, st.Type)
		}
		if known {
			checked[dev] = true
		}
	}
	return nil
}

// eventQueued reports an event queued on the inotify instance fd, in
// one non-blocking read: EAGAIN means none. Any other answer (an event,
// an error) is a change.
func eventQueued(fd int) bool {
	var buf [unix.SizeofInotifyEvent + unix.NAME_MAX + 1]byte
	_, err := unix.Read(fd, buf[:])
	return err != unix.EAGAIN
}

// closeWatch releases an inotify instance and its watches, on a
// goroutine of its own: the close waits for the kernel's grace period
// before the watches are freed (fsnotify_destroy_group), 10-12 ms for an
// instance watching 167 directories (load 4.5-5), more than the walk that
// replaces the answer. Nothing uses fd once its StampWatch is closed.
func closeWatch(fd int) { closing.Go(func() { unix.Close(fd) }) }
