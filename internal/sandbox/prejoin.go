package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Moving a process into a cgroup waits for an RCU grace period (several
// milliseconds on a loaded machine): that wait was the largest part of
// what the sandbox added to a short command. On cgroup v1 a single thread
// can be moved, and a process forked from a thread starts in that
// thread's cgroups. So the next run's limit cgroups are made ahead of
// time, with an OS thread of toolgate's already moved into them; the run's
// command is forked from that thread, which then moves back, leaving the
// command alone in its cgroups. The waits happen off the run's path,
// while the previous run executes. Speed only: BenchmarkSandboxedTrue
// defends it (docs/benchmarks.md).
//
// Only callers that start the command through Prepared.Start get this
// (Run.StartOnThread); the helper then checks that it really runs in the
// run's cgroups and refuses to run the command otherwise.

// prejoined is a run's limit cgroups with a thread waiting in them.
type prejoined struct {
	limits *runLimits
	start  chan *exec.Cmd // the command to start from the thread; closed to release it
	result chan error
	left   chan struct{} // closed once the thread is out of the run's cgroups
}

// prejoinable reports whether threads can be moved into every hierarchy:
// only v1 takes a single thread.
func (lc *limitCgroups) prejoinable() bool {
	for _, h := range lc.hiers {
		if h.v2 {
			return false
		}
	}
	return len(lc.hiers) > 0
}

// refill makes the next pre-joined run in the background, unless one is
// ready or being made.
func (lc *limitCgroups) refill() {
	if lc.closed.Load() || !lc.filling.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer lc.filling.Store(false)
		p, err := lc.prejoin()
		if err != nil {
			return // runs fall back to joining through the helper
		}
		select {
		case lc.ready <- p:
		default:
			p.release()
		}
		if lc.closed.Load() {
			lc.drain()
		}
	}()
}

// drain releases the pre-joined run waiting, if any.
func (lc *limitCgroups) drain() {
	select {
	case p := <-lc.ready:
		p.release()
	default:
	}
}

// take returns the pre-joined run if one is ready, and starts making the
// next.
func (lc *limitCgroups) take() *prejoined {
	var p *prejoined
	select {
	case p = <-lc.ready:
	default:
	}
	lc.refill()
	return p
}

// prejoin makes a run's cgroups and moves a fresh locked thread into them.
func (lc *limitCgroups) prejoin() (*prejoined, error) {
	r, files, err := lc.make()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		_ = f.Close()
	}
	p := &prejoined{limits: r, start: make(chan *exec.Cmd), result: make(chan error, 1), left: make(chan struct{})}
	joined := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer close(p.left) // moved back, or the thread ends with the goroutine
		tid := strconv.Itoa(gettid())
		for _, d := range r.dirs {
			if err := os.WriteFile(filepath.Join(d, "tasks"), []byte(tid), 0); err != nil {
				joined <- fmt.Errorf("move a thread into %s: %w", d, err)
				return
			}
		}
		joined <- nil
		cmd, ok := <-p.start
		if ok {
			p.result <- cmd.Start()
		}
		// The thread must outlive the command: bubblewrap's
		// --die-with-parent is tied to the thread that forked it. So it
		// moves back into toolgate's own cgroups and is handed back to
		// the runtime; only if that fails does it end (killing a
		// command that runs, which then fails visibly).
		for i := range r.dirs {
			if err := os.WriteFile(filepath.Join(r.hiers[i].home, "tasks"), []byte(tid), 0); err != nil {
				return
			}
		}
		runtime.UnlockOSThread()
	}()
	if err := <-joined; err != nil {
		r.finish()
		return nil, err
	}
	return p, nil
}

// release lets an unused pre-joined thread end and removes its cgroups.
func (p *prejoined) release() {
	close(p.start)
	<-p.left // an empty cgroup can be removed
	p.limits.finish()
}

// cgroupLines are the /proc/self/cgroup entries of a run's cgroups.
func (r *runLimits) cgroupLines() []string {
	var out []string
	for i, d := range r.dirs {
		h := r.hiers[i]
		ctl := "pids"
		if h.memory {
			ctl = "memory"
		}
		out = append(out, ctl+":"+strings.TrimPrefix(d, strings.TrimSuffix(h.mount, "/")))
	}
	return out
}
