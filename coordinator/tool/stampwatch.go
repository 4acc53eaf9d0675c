package tool

import "sync"

// StampWatch tells whether stamps still stand (StampsStand) for a kept
// answer that is asked on every call. Polling the stamps costs one
// fstatat per stamped entry, every directory of the workspace for a
// rule matching at any depth; on Linux the watch asks the kernel
// instead: an inotify instance with a watch on every stamped entry and
// on the directories above each, read once per check (one system call
// whatever the number of stamps). Where it cannot watch everything it
// must (stampwatch_linux.go: watchStamps), it polls: never wrong, only
// slower. A StampWatch is not safe for concurrent use: its owner's lock
// guards it. It exists for speed: BenchmarkStampWatch (./coordinator/policy/)
// defends it.
type StampWatch struct {
	w      *Workspace
	stamps []Stamp
	// fd is the inotify instance watching the stamps; -1 when they are
	// polled.
	fd int
	// changed is set once a check saw a change, or the watch was
	// closed: the answer is not to be trusted again.
	changed bool
}

// WatchStamps watches stamps, which a walk took just now, for as long as
// the kept answer they stamp is kept; Close releases the watch. The
// error says why the stamps will be polled instead of watched (it is
// never a failure: Stand works either way).
func (w *Workspace) WatchStamps(stamps []Stamp) (*StampWatch, error) {
	s := &StampWatch{w: w, stamps: stamps, fd: -1}
	fd, err := w.watchStamps(stamps)
	if err != nil {
		return s, err
	}
	s.fd = fd
	return s, nil
}

// Stand reports whether every stamped entry is as it was: when watched,
// whether no event is queued since the watch was armed.
func (s *StampWatch) Stand() bool {
	if s.changed {
		return false
	}
	if s.fd < 0 {
		return s.w.StampsStand(s.stamps)
	}
	if eventQueued(s.fd) {
		s.changed = true
		return false
	}
	return true
}

// Close releases the watch's inotify instance (soon after it returns:
// closeWatch); the stamps no longer stand for it.
func (s *StampWatch) Close() {
	if s == nil {
		return
	}
	if s.fd >= 0 {
		closeWatch(s.fd)
		s.fd = -1
	}
	s.changed = true
}

// closing counts the inotify instances closeWatch is closing on a
// goroutine of their own.
var closing sync.WaitGroup

// WatchesClosed waits until every StampWatch closed so far has released
// its inotify instance: for tests that count the process's instances.
func WatchesClosed() { closing.Wait() }
