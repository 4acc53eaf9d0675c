package process

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox"
	"golang.org/x/sys/unix"
)

// ErrTimedOut is the cause of a run's context when its timeout passed.
var ErrTimedOut = errors.New("timed out")

// errLimit is the cause of a run's context when it reached a sandbox limit.
var errLimit = errors.New("sandbox limit reached")

// Options describe one run.
type Options struct {
	// Command is a bash command line.
	Command string
	// Dir is the working directory; Env the whole environment.
	Dir string
	Env []string
	// Stdin feeds the command's standard input; nil means none.
	Stdin io.Reader
	// Timeout kills the process group after this long; 0 means never.
	Timeout time.Duration
	// Grace bounds how long Run waits for the output pipes to close once
	// the shell has exited or been killed (default 2 s). Processes still
	// holding them then are killed and the pipes abandoned.
	Grace time.Duration
	// FlushDelay is how long a partial line waits before it is sent
	// anyway (default 20 ms).
	FlushDelay time.Duration
	// Output receives stdout and stderr combined; required.
	Output *Output
	// OnChunk receives live chunks of "stdout" or "stderr", in order per
	// stream, at most LiveRate bytes a second after a burst of LiveBurst
	// (defaults 512 KiB/s and 2 MiB). It must not block.
	OnChunk             func(stream, chunk string)
	LiveRate, LiveBurst int
	// OnBytes counts every byte read, live or not.
	OnBytes func(stream string, n int)
	// Sandbox confines the run as Confine describes; nil runs it
	// unconfined (toolgate's own tools, tests of this package).
	Sandbox *sandbox.Sandbox
	Confine sandbox.Run
	// OnStart is called once the process has started.
	OnStart func()
}

// Result is how a run ended.
type Result struct {
	// ExitCode is the shell's exit status, -1 when a signal ended it.
	ExitCode int
	// Signal names the signal that ended the shell, if one did (SIGKILL).
	Signal string
	// TimedOut reports that the timeout killed the group.
	TimedOut bool
	// Cancelled reports that the caller's context ended the run.
	Cancelled bool
	// Stray reports processes that kept the output pipes open after the
	// shell ended; they were killed.
	Stray    bool
	Duration time.Duration
	// Limit names the sandbox limit that ended the run, if one did.
	Limit string
}

func (o *Options) defaults() {
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	if o.FlushDelay <= 0 {
		o.FlushDelay = 20 * time.Millisecond
	}
	if o.LiveRate <= 0 {
		o.LiveRate = 512 << 10
	}
	if o.LiveBurst <= 0 {
		o.LiveBurst = 2 << 20
	}
}

// Run runs the command through bash and waits for it. The error is only
// for a command that could not start; how it ended is in Result.
func Run(ctx context.Context, o Options) (Result, error) {
	res, err := runOnce(ctx, o)
	if errors.Is(err, errMoved) {
		res, err = runOnce(ctx, o) // looked up afresh
	}
	return res, err
}

// errMoved: the program was not where lookPath remembered it.
var errMoved = errors.New("program moved")

func runOnce(ctx context.Context, o Options) (Result, error) {
	o.defaults()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if o.Timeout > 0 {
		t := time.AfterFunc(o.Timeout, func() { cancel(ErrTimedOut) })
		defer t.Stop()
	}
	argv, env := []string{"bash", "-c", o.Command}, o.Env
	var confined *sandbox.Prepared
	if o.Sandbox != nil {
		r := o.Confine
		r.StartOnThread = true // started below through confined.Start
		r.Warm = true          // which may hand it to a sandbox started ahead
		p, err := o.Sandbox.Prepare(argv, env, r)
		if err != nil {
			return Result{ExitCode: -1}, err
		}
		confined, argv, env = p, p.Argv, p.Env
	}
	path, remembered, err := lookPath(argv[0])
	if err != nil {
		confined.Finish()
		return Result{ExitCode: -1}, err
	}
	cmd := exec.CommandContext(runCtx, path, argv[1:]...)
	cmd.Args[0] = argv[0] // the name the command was given ($0 of bash -c)
	cmd.Dir, cmd.Env, cmd.Stdin = o.Dir, env, o.Stdin
	if o.Stdin == nil {
		if f := devNull(); f != nil {
			cmd.Stdin = f // as os/exec would give, without an open per run
		}
	}
	if confined != nil {
		cmd.ExtraFiles = confined.ExtraFiles
	}
	// A session of its own: one group to kill, and no controlling
	// terminal, so a command that opens /dev/tty fails instead of hanging.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var cg *runCgroup
	if parent := cgroups(); parent != nil {
		if c, err := parent.make(); err == nil {
			cg = c
			defer cg.remove()
			cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(cg.fd.Fd())
		}
	}
	// running is the process the command runs as: cmd, or the sandbox
	// started ahead of time that it was handed to (confined.Running).
	running := cmd
	// kill ends the group and, where there is one, everything in the
	// run's cgroup, processes that left the group included.
	kill := func() error {
		err := killGroup(running.Process.Pid)
		if cg != nil {
			cg.kill()
		}
		return err
	}
	cmd.Cancel = kill
	cmd.WaitDelay = o.Grace
	if limit := confined.LimitReached(); limit != nil {
		// A run that reached a sandbox limit is ended as a whole.
		go func() {
			select {
			case <-limit:
				cancel(errLimit)
			case <-runCtx.Done():
			}
		}()
	}

	k := &sink{out: o.Output, onChunk: o.OnChunk, onBytes: o.OnBytes,
		live: bucket{rate: float64(o.LiveRate), burst: float64(o.LiveBurst)}}
	pipes, err := startWithPipes(cmd, confined.Start, k, o.FlushDelay)
	if err != nil {
		confined.Finish()
		if remembered && errors.Is(err, fs.ErrNotExist) {
			forgetPath(argv[0])
			return Result{ExitCode: -1}, errMoved
		}
		return Result{ExitCode: -1}, err
	}
	start := time.Now()
	if r := confined.Running(cmd); r != cmd {
		// Set only here: cmd, never started, has no Cancel to race with.
		// And the context does not end r by itself.
		running = r
		stop := context.AfterFunc(runCtx, func() { _ = kill() })
		defer stop()
	}
	if o.OnStart != nil {
		o.OnStart()
	}
	_ = running.Wait() // how it ended is in ProcessState
	// Decided when the shell ended: a timeout firing during the drain
	// below did not end it.
	cancelled := ctx.Err() != nil
	timedOut := !cancelled && errors.Is(context.Cause(runCtx), ErrTimedOut)
	stray := pipes.drain(runCtx.Done(), o.Grace, kill)
	res := Result{ExitCode: running.ProcessState.ExitCode(), Stray: stray, Duration: time.Since(start),
		TimedOut: timedOut, Cancelled: cancelled, Limit: confined.Finish()}
	if ws, ok := running.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		// The signal's name as shells and Node print it (SIGTERM).
		if res.Signal = unix.SignalName(ws.Signal()); res.Signal == "" {
			res.Signal = ws.Signal().String()
		}
	} else if confined != nil && confined.Relayed && res.ExitCode > 128 && res.ExitCode <= 128+31 {
		// bubblewrap relays a death by signal as 128+N, as a shell would.
		if res.Signal = unix.SignalName(syscall.Signal(res.ExitCode - 128)); res.Signal == "" {
			res.Signal = syscall.Signal(res.ExitCode - 128).String()
		}
		res.ExitCode = -1
	}
	return res, nil
}

// lookPaths caches where programs named without a slash were found, by
// name and PATH: looking bash up along PATH took a tenth of the CPU time
// of starting `true`.
var lookPaths sync.Map // lookKey -> string

type lookKey struct{ name, path string }

// lookPath is exec.LookPath, remembered while PATH stays the same;
// remembered says the answer came from memory. A program that is no
// longer where it was found is looked up afresh (forgetPath).
func lookPath(name string) (path string, remembered bool, err error) {
	if strings.Contains(name, "/") {
		return name, false, nil
	}
	key := lookKey{name, os.Getenv("PATH")}
	if p, ok := lookPaths.Load(key); ok {
		return p.(string), true, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", false, err
	}
	lookPaths.Store(key, p)
	return p, false, nil
}

// forgetPath drops what lookPath remembers of name.
func forgetPath(name string) {
	lookPaths.Delete(lookKey{name, os.Getenv("PATH")})
}

// devNull is /dev/null opened once for reading: the standard input of
// every run that has none.
var devNull = sync.OnceValue(func() *os.File {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return nil
	}
	return f
})

// outputPipe makes a pipe for one output stream. Only the read end is
// non-blocking and watched by the runtime's poller; the write end, which
// the child gets and this process closes at once, stays blocking and out
// of the poller (os.Pipe would register it and switch it back).
func outputPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := unix.SetNonblock(p[0], true); err != nil {
		_ = unix.Close(p[0])
		_ = unix.Close(p[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// pipes are the read ends of stdout and stderr and their readers.
type pipes struct {
	files []*os.File
	done  chan struct{}
}

// start starts cmd: a sandboxed run's Prepared.Start, which may begin it
// inside its limit cgroups.
func startWithPipes(cmd *exec.Cmd, start func(*exec.Cmd) error, k *sink, delay time.Duration) (*pipes, error) {
	p := &pipes{done: make(chan struct{})}
	var writers []*os.File
	closeAll := func() {
		for _, f := range append(p.files, writers...) {
			f.Close()
		}
	}
	for range 2 {
		r, w, err := outputPipe()
		if err != nil {
			closeAll()
			return nil, err
		}
		p.files, writers = append(p.files, r), append(writers, w)
	}
	cmd.Stdout, cmd.Stderr = writers[0], writers[1]
	if err := start(cmd); err != nil {
		closeAll()
		return nil, err
	}
	for _, w := range writers {
		w.Close() // the child holds its own copies
	}
	// The reader that ends last closes done.
	var open atomic.Int32
	open.Store(2)
	for i, name := range []string{"stdout", "stderr"} {
		s := &streamer{name: name, sink: k, delay: delay}
		go func() {
			s.read(p.files[i])
			if open.Add(-1) == 0 {
				close(p.done)
			}
		}()
	}
	return p, nil
}

// drain waits for both pipes to reach their end. Processes that keep them
// open past the grace period (a background job, a daemon) are killed, and
// the pipes are closed under them so that nothing waits any longer; it
// reports whether that was needed. stop (a timeout or cancellation) kills
// the group at once, yet what the killed processes wrote before is still
// read to the end.
func (p *pipes) drain(stop <-chan struct{}, grace time.Duration, kill func() error) (stray bool) {
	defer func() {
		for _, f := range p.files {
			f.Close()
		}
	}()
	deadline := time.Now().Add(grace)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return false
	case <-t.C:
		stray = true
	case <-stop:
	}
	_ = kill()
	// Killed processes release the pipes at once; only one that left the
	// group (setsid) where there is no cgroup can hold them now.
	t.Reset(max(time.Until(deadline), 100*time.Millisecond))
	select {
	case <-p.done:
		return stray
	case <-t.C:
	}
	for _, f := range p.files {
		f.Close() // ends the readers' blocked reads
	}
	<-p.done
	return true
}

// killGroup kills every process of the group led by pid.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
