package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox/helper"
	"golang.org/x/sys/unix"
)

// A run handed to a sandbox started ahead of time ends with its helper's
// report (helper/child.go): the command has ended, and everything it left
// in the sandbox has been killed and reaped, before the report is sent.
// The runner answers from it (EndFD, Ended) as soon as the output is
// drained; bubblewrap, its PID 1 and the helper are ended, and the run's
// cgroups removed, in the background (Finish). Waiting for bubblewrap's
// exit instead cost ~2.7 ms between the command's end and the answer.
// Speed only: BenchmarkSequentialSandboxedTrue (./internal/sandbox/,
// bwrap-exit beside depth2)
// defends it.

// Exit is how a command ended, as the helper of a sandbox started ahead
// of time reports it: Code is the exit status bubblewrap would have
// relayed (128+N for death by signal N), Signal N or 0.
type Exit = helper.Exit

// EndFD is, for a run handed to a sandbox started ahead of time, a
// descriptor (the caller's, to close) that becomes readable once the
// sandbox's helper has reported the command's end, or has ended without
// a report (the run was killed); -1 for other runs, whose end is their
// process's (Running).
func (p *Prepared) EndFD() int {
	if p == nil || !p.handed {
		return -1
	}
	rc, err := p.warm.conn.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if err := rc.Control(func(s uintptr) { fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || fd < 0 {
		return -1
	}
	return fd
}

// Ended reads the helper's report once EndFD is readable: how the
// command ended, or false when the helper ended without saying (killed
// with the run, or by the command): Running's exit then tells, as for a
// run of a sandbox of its own.
func (p *Prepared) Ended() (Exit, bool) {
	if p == nil || !p.handed {
		return Exit{}, false
	}
	_ = p.warm.conn.SetDeadline(time.Now().Add(warmWait))
	r, err := p.warm.read()
	if err != nil || r.Exit == nil {
		return Exit{}, false
	}
	p.reported = true
	return *r.Exit, true
}

// finishReported is Finish for a run whose helper reported its end: it
// says which limit the run reached, if any. In the background, what the
// limit cgroups still hold besides the helper's thread (nothing, as the
// helper killed and reaped it all before it reported) is killed, then
// the sandbox is readied and kept for the session's next command
// (reuse.go), or bubblewrap is killed and reaped, its mount namespace
// let go and the cgroups removed. The kill reads each cgroup's process
// list, which was on the answer's path before; speed only:
// BenchmarkSequentialSandboxedTrue (./internal/sandbox/, the session's
// finish median).
func (p *Prepared) finishReported() string {
	w, lim := p.warm, p.limits
	hit := ""
	if lim != nil {
		hit = lim.reached()
		lim.parent.removing.Add(1)
	}
	// A run that reached a limit does not leave its sandbox to the next.
	keep := p.box != nil && hit == ""
	var done func()
	if keep {
		done = p.box.kept.readying(p.session)
	}
	go func() {
		if lim != nil {
			lim.killExcept(w.pid)
		}
		if keep {
			p.box.keep(p.session, w, done) // reuse.go
		} else {
			w.end()
		}
		if lim != nil {
			lim.parent.removing.Add(-1)
		}
	}()
	return hit
}

// killExcept kills every process in the run's cgroups but keep (and
// toolgate itself).
func (r *runLimits) killExcept(keep int) {
	spare := []string{strconv.Itoa(os.Getpid()), strconv.Itoa(keep)}
	for _, d := range r.dirs {
		data, _ := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 && f != spare[0] && f != spare[1] {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// makeForHelper makes a run's cgroups for a sandbox started ahead of
// time, whose helper's thread stays in the v1 ones beside the command (one
// task of slack in pids.max), and opens what the helper needs to place
// the command in them (helperFiles).
func (lc *limitCgroups) makeForHelper() (*runLimits, []*os.File, *os.File, error) {
	lim, procs, err := lc.makeRun(1)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, f := range procs {
		_ = f.Close()
	}
	tasks, dir, err := lim.helperFiles()
	if err != nil {
		lim.finish()
		return nil, nil, nil, err
	}
	return lim, tasks, dir, nil
}

// helperFiles opens what a helper that starts the command as its child
// needs to place it in the run's cgroups: each v1 hierarchy's tasks file
// (its locked thread joins them) and the v2 cgroup's directory (the
// command is cloned into it).
func (r *runLimits) helperFiles() (tasks []*os.File, dir *os.File, err error) {
	for i, d := range r.dirs {
		if r.hiers[i].v2 {
			dir, err = os.Open(d)
		} else {
			var f *os.File
			if f, err = os.OpenFile(filepath.Join(d, "tasks"), os.O_WRONLY, 0); err == nil {
				tasks = append(tasks, f)
			}
		}
		if err != nil {
			for _, f := range tasks {
				_ = f.Close()
			}
			if dir != nil {
				_ = dir.Close()
			}
			return nil, nil, err
		}
	}
	return tasks, dir, nil
}
