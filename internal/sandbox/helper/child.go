package helper

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// A helper that waits for its command (Spec.Control) starts it as its
// child rather than exec'ing it, so that it can say how it ended without
// the sandbox ending: bubblewrap's exit came ~2.7 ms after the command's
// (its PID 1 and bubblewrap each had to wake and exit), and toolgate
// waited for it. The helper waits for the command, then kills everything
// else the command left in the sandbox's PID namespace (kill(-1) spares
// only the helper and bubblewrap's PID 1), reaps it all as the
// namespace's subreaper, and only then reports the command's exit status
// or signal on the control socket. toolgate answers from that report and
// reaps bubblewrap in the background.
//
// The command is started from the helper's locked thread: Landlock, the
// dropped capabilities and, with cgroup v1, the run's limit cgroups are
// that thread's (JoinTasks), and the child inherits them. With cgroup v2
// the kernel places the child in the run's cgroup as it creates it
// (CgroupDir, CLONE_INTO_CGROUP). Either way the helper's other threads
// stay out of the run's process count.
//
// The helper is not dumpable: a command running as the same user can
// neither ptrace it nor open its /proc entries (its descriptors, the
// control socket among them). It can still signal it; a helper killed or
// stopped sends no report, and toolgate then takes the status from
// bubblewrap's exit, or kills the run at its timeout, as before.

// serve is the life of a helper that waits for its command: it returns
// only when it cannot take one; otherwise it exits, once it has reported
// how the command ended, with the status bubblewrap would have relayed,
// or, when the command asked for it (Request.Reuse), goes on to the
// session's next command (reuse.go).
//
// The locked thread starts each command; another goroutine (on another
// thread) waits for it, kills and reaps what it left and reports, so
// that the locked thread can meanwhile join the next command's limit
// cgroups, a move that waits for the kernel (an RCU grace period, 7-35
// ms at load 10 on cgroup v1) while the command runs. The control
// socket's messages keep their order: started, the exit, then joined.
func serve(spec Spec) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	made := noteSandbox()
	inbox := newInbox()
	c, ids, err := await(spec, inbox)
	if err != nil {
		return err
	}
	for {
		req := c.req
		pid := runCommand(spec, c)
		reaped := make(chan error, 1)
		go func(reuse bool) {
			exit := Exit{Code: 126}
			if pid > 0 {
				exit = reapAll(pid)
			}
			reply(spec.Control, Reply{Exit: &exit})
			if !reuse {
				os.Exit(exit.Code)
			}
			reaped <- restore(made)
		}(req.Reuse)
		if !req.Reuse {
			select {} // the goroutine above exits
		}
		joined := next(spec, inbox)
		if err := errors.Join(<-reaped, joined); err != nil {
			reply(spec.Control, Reply{Error: err.Error()})
			os.Exit(125)
		}
		reply(spec.Control, Reply{Joined: true})
		if c, err = take(spec, ids, inbox); err != nil {
			os.Exit(125)
		}
	}
}

// runCommand says the command is taken, starts it with its standard
// streams (which it closes), and returns its pid; 0 for a command that
// cannot be started, its reason on its stderr (it ends with status 126).
func runCommand(spec Spec, c command) int {
	// Said before the command can run: one that kills the helper at once
	// must not look as if it never started.
	reply(spec.Control, Reply{Started: true})
	pid, err := 0, c.err
	if err == nil {
		pid, err = startCommand(spec, c)
	}
	if err != nil {
		_, _ = syscall.Write(c.fds[2], []byte("toolgate sandbox: "+err.Error()+"\n"))
	}
	for _, fd := range c.fds {
		_ = syscall.Close(fd) // the command holds its own
	}
	if err != nil {
		return 0
	}
	return pid
}

// startCommand starts c, readied by take, as a child in a session of its
// own (as bubblewrap's --new-session made the command it exec'd).
func startCommand(spec Spec, c command) (int, error) {
	sys := &syscall.SysProcAttr{Setsid: true}
	if spec.CgroupDir > 0 {
		sys.UseCgroupFD, sys.CgroupFD = true, spec.CgroupDir
	}
	return syscall.ForkExec(c.path, c.req.Argv, &syscall.ProcAttr{
		Env: c.env, Files: []uintptr{uintptr(c.fds[0]), uintptr(c.fds[1]), uintptr(c.fds[2])}, Sys: sys,
	})
}

// reapAll waits for the command pid, then kills every other process of
// the sandbox's PID namespace and reaps them, the helper being their
// subreaper, until none is left; it returns how the command ended. A
// process forked while kill(-1) runs is refused its fork (the kernel
// fails a fork whose parent has a fatal signal pending), and the kill is
// repeated after each reap all the same.
func reapAll(pid int) Exit {
	exit := Exit{Code: 126}
	ended := false
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return exit // ECHILD: nothing is left
		}
		if got == pid {
			ended, exit = true, exitOf(ws)
		}
		if ended {
			_ = syscall.Kill(-1, syscall.SIGKILL)
		}
	}
}

// exitOf is a wait status as bubblewrap relays it: the exit status, or
// 128+N for death by signal N (with the signal named).
func exitOf(ws syscall.WaitStatus) Exit {
	if ws.Signaled() {
		return Exit{Code: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
	}
	return Exit{Code: ws.ExitStatus()}
}
