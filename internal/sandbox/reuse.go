package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox/helper"
)

// A sandbox started ahead of time that served a command of a session
// (Run.Session) stays with that session and serves its next command, so
// that no bubblewrap is started per command: each start cost 5-8 ms of
// CPU (8-11 with the helper), on a 2-core machine beside the command
// that followed. It serves the next command only when that command's
// sandbox would be exactly the same (the key of warm.go: configuration,
// masks, network) and every mount is still in place (warm.check), as a
// sandbox started ahead is checked; otherwise it is discarded and the
// command goes the usual way. It is never shared between sessions.
//
// Between two commands nothing of the first is left running: its helper
// killed and reaped it all before it reported (helper/child.go). The
// helper then empties /tmp and /dev/shm, checks /dev and its own
// inheritable attributes, and moves into the next command's limit
// cgroups, made afresh (helper/reuse.go), before the sandbox is kept;
// a helper that fails any of that, that did not report (killed, stopped,
// timed out), or a run that reached a limit, ends the sandbox instead.
// Only where runs have limit cgroups: elsewhere runs take sandboxes as
// before. Speed only: BenchmarkSequentialSandboxedTrue
// (./internal/sandbox/, session beside depth2) defends it.

// maxKept bounds the sessions that keep a sandbox (each bubblewrap, its
// PID 1 and the helper, a few MB); the least recently kept goes first.
const maxKept = 8

// keptSlot holds one sandbox per session, for its next command.
type keptSlot struct {
	mu    sync.Mutex
	byID  map[string]*warm
	order []string // sessions, least recently kept first
	// pending are the sessions whose sandbox is being readied for their
	// next command: a command that comes meanwhile waits for it.
	pending map[string]chan struct{}
	closed  bool
}

// readying notes that the session's sandbox is being readied; the
// returned function says it is done (kept or not).
func (k *keptSlot) readying(session string) func() {
	ch := make(chan struct{})
	k.mu.Lock()
	if k.pending == nil {
		k.pending = map[string]chan struct{}{}
	}
	k.pending[session] = ch
	k.mu.Unlock()
	return func() {
		k.mu.Lock()
		if k.pending[session] == ch {
			delete(k.pending, session)
		}
		k.mu.Unlock()
		close(ch)
	}
}

// take returns the session's kept sandbox if it was made for key; one
// made for another key is discarded (the masks or the configuration
// changed).
func (k *keptSlot) take(session, key string) *warm {
	k.mu.Lock()
	if ch := k.pending[session]; ch != nil && k.byID[session] == nil {
		k.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(warmWait):
		}
		k.mu.Lock()
	}
	w := k.byID[session]
	if w != nil {
		delete(k.byID, session)
		k.order = deleteString(k.order, session)
	}
	k.mu.Unlock()
	if w == nil {
		return nil
	}
	if w.key != key || w.check() != nil {
		go w.end()
		return nil
	}
	return w
}

// put keeps w for the session's next command.
func (k *keptSlot) put(session string, w *warm) {
	k.mu.Lock()
	var drop []*warm
	if k.closed {
		drop = append(drop, w)
	} else {
		if old := k.byID[session]; old != nil {
			drop = append(drop, old)
			k.order = deleteString(k.order, session)
		}
		if k.byID == nil {
			k.byID = map[string]*warm{}
		}
		k.byID[session] = w
		k.order = append(k.order, session)
		for len(k.order) > maxKept {
			drop = append(drop, k.byID[k.order[0]])
			delete(k.byID, k.order[0])
			k.order = k.order[1:]
		}
	}
	k.mu.Unlock()
	for _, d := range drop {
		go d.end()
	}
}

// drop ends the kept sandboxes whose key holds mark (a session network's
// that closed).
func (k *keptSlot) drop(mark string) {
	k.mu.Lock()
	var drop []*warm
	for id, w := range k.byID {
		if strings.Contains(w.key, mark) {
			drop = append(drop, w)
			delete(k.byID, id)
			k.order = deleteString(k.order, id)
		}
	}
	k.mu.Unlock()
	for _, w := range drop {
		w.end()
	}
}

// close ends every kept sandbox and keeps no more.
func (k *keptSlot) close() {
	k.mu.Lock()
	k.closed = true
	byID := k.byID
	k.byID, k.order = nil, nil
	k.mu.Unlock()
	for _, w := range byID {
		w.end()
	}
}

func deleteString(list []string, s string) []string {
	for i, v := range list {
		if v == s {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// reusable reports whether a run's sandbox may be kept for its session:
// one is named, runs have limit cgroups (each command gets its own), and
// no network_allow relay runs in the sandbox.
func (s *Sandbox) reusable(session string, spec helperSpec) bool {
	return session != "" && s.cgroups != nil && spec.ProxySocket == "" && !s.warm.plainEnd
}

// end stops a sandbox that served a run: bubblewrap killed and reaped,
// its mount namespace let go, its limit cgroups removed (the next
// command's too).
func (w *warm) end() {
	w.stop()
	w.releaseMounts()
	w.finishLimits()
	w.dropNext()
}

// dropNext removes the next command's cgroups made for a sandbox that
// will not serve it.
func (w *warm) dropNext() {
	if w.nextLimits == nil {
		return
	}
	if lim := <-w.nextLimits; lim != nil {
		lim.finish()
	}
	w.nextLimits = nil
}

// keep keeps a sandbox whose command ended, as its helper reported, for
// the session's next command once its helper says it is ready; or ends
// it.
func (s *Sandbox) keep(session string, w *warm, done func()) {
	last, err := w.joined()
	if err != nil {
		done()
		w.end()
		return
	}
	s.kept.put(session, w)
	done()
	// Removed once the next command may have the sandbox: removing a v1
	// memory cgroup waits on the kernel (finishLater).
	last.finish() // empty: the helper's thread has left it
}

// sendNext makes the next command's limit cgroups and gives them to the
// helper of a run just handed over, which joins them while the command
// runs. Runs in the background.
func (w *warm) sendNext(lc *limitCgroups) {
	lim, tasks, dir, err := lc.makeForHelper()
	if err == nil {
		files := tasks
		if dir != nil {
			files = append(files, dir)
		}
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		b, _ := json.Marshal(helper.Request{Next: true}) // plain data: cannot fail
		_, _, err = w.conn.WriteMsgUnix(b, syscall.UnixRights(fds...), nil)
		for _, f := range files {
			_ = f.Close()
		}
		if err != nil {
			lim.finish()
		}
	}
	if err != nil {
		lim = nil
	}
	w.nextLimits <- lim
}

// joined waits for the helper to say that the sandbox is ready for the
// next command, in that command's cgroups (sent by sendNext), and
// returns the last command's cgroups, for the caller to remove.
func (w *warm) joined() (*runLimits, error) {
	lim := <-w.nextLimits
	w.nextLimits = nil
	if lim == nil {
		return nil, errors.New("the next command's cgroups could not be given to the sandbox helper")
	}
	_ = w.conn.SetDeadline(time.Now().Add(warmWait))
	r, err := w.read()
	if err == nil && !r.Joined {
		err = fmt.Errorf("the sandbox is not ready for the next command: %s", r.Error)
	}
	if err != nil {
		lim.finish()
		return nil, err
	}
	last := w.limits
	w.limits = lim
	return last, nil
}
