package ignore

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher holds the current .clineignore matcher of a workspace and reloads
// it when .clineignore, an extra file or an included file changes, so edits
// take effect without a restart. It watches directories rather than files,
// so deleting and recreating a file and editors' rename-on-save are seen.
// Where file notifications are unavailable it falls back to comparing each
// file's size, modification time and inode on every Current call.
type Watcher struct {
	root  *os.Root
	dir   string   // absolute workspace path, for fsnotify
	files []string // .clineignore and the extra files
	cur   atomic.Pointer[loaded]

	mu  sync.Mutex        // serializes reloads
	fsw *fsnotify.Watcher // nil: poll on Current instead

	done      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// loaded is one load's outcome, swapped in as a whole.
type loaded struct {
	m      *Matcher
	err    error
	deps   []string
	stamps []stamp   // state of deps before they were read (polling mode)
	at     time.Time // when the stamps were taken
}

// racyWindow is how close to a load a file's modification time must be for
// the stamp to prove nothing: file systems stamp times from a coarse clock,
// so a rewrite of the same size right after a read can keep its mtime.
// Within the window polling reloads regardless (git's "racily clean" rule).
const racyWindow = 2 * time.Second

// stamp identifies a version of a file cheaply.
type stamp struct {
	exists bool
	size   int64
	mtime  time.Time
	ino    uint64
}

// NewWatcher loads .clineignore and the extra files (see load)
// and starts watching them. Load problems do not fail it: Err reports them
// and Current serves the rules that could be read. Where notifications
// cannot be had it polls (see NewPollingWatcher). It fails only when root
// is nil.
func NewWatcher(root *os.Root, extra ...string) (*Watcher, error) {
	return newWatcher(root, true, extra...)
}

// NewPollingWatcher is a Watcher that never asks for file notifications:
// Current compares each file's stamp and reloads when one changed. It is
// the fallback of a caller whose NewWatcher failed, so rules are never
// served without being read. It fails only when root is nil.
func NewPollingWatcher(root *os.Root, extra ...string) (*Watcher, error) {
	return newWatcher(root, false, extra...)
}

func newWatcher(root *os.Root, notify bool, extra ...string) (*Watcher, error) {
	if root == nil {
		return nil, errors.New("ignore: nil workspace root")
	}
	dir, err := filepath.Abs(root.Name())
	if err != nil {
		// Notifications name absolute paths; without one, poll.
		notify = false
	}
	w := &Watcher{
		root:  root,
		dir:   dir,
		files: append([]string{ClineignoreFile}, extra...),
		done:  make(chan struct{}),
	}
	if notify {
		// Without a watch on the workspace itself (inotify limits reached,
		// say) notifications would miss .clineignore: poll instead.
		if fsw, err := fsnotify.NewWatcher(); err == nil {
			if fsw.Add(dir) == nil {
				w.fsw = fsw
			} else {
				fsw.Close()
			}
		}
	}
	w.mu.Lock()
	w.reloadLocked()
	w.mu.Unlock()
	if w.fsw != nil {
		w.wg.Add(1)
		go w.run()
	}
	return w, nil
}

// Current returns the matcher for the files as they are now. It never
// returns nil.
func (w *Watcher) Current() *Matcher {
	if w.fsw == nil {
		w.poll()
	}
	return w.cur.Load().m
}

// Err returns the problems of the latest load (a missing include, an
// include cycle), or nil.
func (w *Watcher) Err() error {
	return w.cur.Load().err
}

// Close stops watching. Current keeps returning the last matcher.
func (w *Watcher) Close() error {
	var err error
	w.closeOnce.Do(func() {
		close(w.done)
		if w.fsw != nil {
			err = w.fsw.Close()
		}
		w.wg.Wait()
	})
	return err
}

func (w *Watcher) run() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if w.relevant(ev.Name) {
				w.reload()
			}
		case _, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			// Most likely a queue overflow: events were lost, so reload.
			w.reload()
		}
	}
}

// relevant reports whether an event on the absolute name may change the
// rules: it names a file the last load read or tried to read, or a
// directory on the way to one.
func (w *Watcher) relevant(name string) bool {
	rel, err := filepath.Rel(w.dir, name)
	if err != nil {
		return true
	}
	rel = filepath.ToSlash(rel)
	for _, d := range w.cur.Load().deps {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			return true
		}
	}
	return false
}

func (w *Watcher) reload() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reloadLocked()
}

// reloadLocked loads the files and makes sure the directories holding them
// are watched. When it starts watching a new directory it loads again, since
// a file may have appeared there before the watch began.
func (w *Watcher) reloadLocked() {
	for range 3 {
		l := w.loadOnce()
		w.cur.Store(l)
		if !w.watchDirs(l.deps) {
			return
		}
	}
}

// loadOnce loads the files. In polling mode it stamps them before reading,
// so a change racing with the read is seen by the next poll; when the set
// of files changed (an include added) it reads again with the new set
// stamped. Stamps left mismatched after a few tries make the next poll
// reload, so a set that keeps changing is never missed.
func (w *Watcher) loadOnce() *loaded {
	var deps []string
	if prev := w.cur.Load(); prev != nil {
		deps = prev.deps
	}
	for try := 0; ; try++ {
		var stamps []stamp
		at := time.Now()
		if w.fsw == nil {
			stamps = w.stampAll(deps)
		}
		m, got, err := load(w.root, w.files)
		if w.fsw != nil || slices.Equal(got, deps) || try == 2 {
			return &loaded{m: m, err: err, deps: got, stamps: stamps, at: at}
		}
		deps = got
	}
}

// watchDirs adds watches for the directories of deps (and their existing
// ancestors, so a directory created later is noticed). It reports whether
// a new watch was added.
func (w *Watcher) watchDirs(deps []string) bool {
	if w.fsw == nil {
		return false
	}
	// fsnotify drops the watch of a removed directory by itself, so ask it
	// what is watched rather than remembering.
	watched := map[string]bool{}
	for _, name := range w.fsw.WatchList() {
		watched[name] = true
	}
	added := false
	for _, d := range deps {
		for dir := path.Dir(d); ; dir = path.Dir(dir) {
			abs := w.dir
			if dir != "." {
				abs = filepath.Join(w.dir, filepath.FromSlash(dir))
			}
			if !watched[abs] && w.fsw.Add(abs) == nil {
				watched[abs] = true
				added = true
			}
			if dir == "." {
				break
			}
		}
	}
	return added
}

// poll reloads when a file the last load depended on changed.
func (w *Watcher) poll() {
	l := w.cur.Load()
	if sameStamps(w.stampAll(l.deps), l.stamps) && !l.racy() {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur.Load() == l {
		w.reloadLocked()
	}
}

// racy reports whether a file was modified so close to the load that an
// unchanged stamp does not prove unchanged contents.
func (l *loaded) racy() bool {
	for _, s := range l.stamps {
		if s.exists && s.mtime.After(l.at.Add(-racyWindow)) {
			return true
		}
	}
	return false
}

func (w *Watcher) stampAll(names []string) []stamp {
	out := make([]stamp, len(names))
	for i, n := range names {
		st, err := w.root.Stat(n)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				out[i].size = -1 // unreadable: differs from both states
			}
			continue
		}
		out[i] = stamp{exists: true, size: st.Size(), mtime: st.ModTime(), ino: inode(st)}
	}
	return out
}

func sameStamps(a, b []stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].exists != b[i].exists || a[i].size != b[i].size ||
			!a[i].mtime.Equal(b[i].mtime) || a[i].ino != b[i].ino {
			return false
		}
	}
	return true
}
