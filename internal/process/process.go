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
	// Command is a command line for Shell.
	Command string
	// Shell is the shell that runs Command with -c: a program name
	// looked up on PATH, or a path (DefaultShell, bash, when "").
	Shell string
	// loginShell runs Shell as a login shell (-l), which reads the login
	// profile before Command: LoginEnv's capture only. A command with
	// the profile's environment gets it in Env and runs in a plain shell.
	loginShell bool
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
	// Ready, when set, is called once the run is prepared, right before
	// its process starts (or is handed to a sandbox started ahead): an
	// error ends the run with nothing started, and Run returns it.
	Ready func() error
	// OnStart is called once the process has started.
	OnStart func()
	// Terminal, when set, runs the command under that pseudo-terminal
	// instead of pipes: its output is one stream, its input Stdin.
	Terminal *Terminal
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

// Run runs the command through its shell and waits for it. The error is only
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
	argv, env := shellArgv(o.Shell, o.Command, o.loginShell), o.Env
	var slave *os.File
	if o.Terminal != nil {
		s, err := o.Terminal.open()
		if err != nil {
			return Result{ExitCode: -1}, err
		}
		slave = s
		defer o.Terminal.close()
		defer slave.Close() // when it was not started
	}
	var confined *sandbox.Prepared
	if o.Sandbox != nil {
		r := o.Confine
		r.StartOnThread = true // started below through confined.Start
		r.Warm = true          // which may hand it to a sandbox started ahead
		if slave != nil {
			r.TTY = slave.Name()
		}
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
	// Not exec.CommandContext: its watch of the context costs a goroutine
	// per run. The context's end kills the run below (context.AfterFunc).
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0] // the name the command was given ($0 of bash -c)
	if confined == nil {
		// Started by its path, with $0 still "bash" as bash -c's name
		// argument: a bash whose argv[0] has no slash looks itself up
		// along PATH as it starts, a stat per PATH entry (30-40 µs;
		// BenchmarkRunTrueVsBash, docs/benchmarks.md).
		cmd = exec.Command(path, directArgs(argv)...)
	}
	cmd.Dir, cmd.Env, cmd.Stdin = o.Dir, env, o.Stdin
	copyStdin := func() {}
	if _, isFile := o.Stdin.(*os.File); o.Stdin != nil && !isFile && slave == nil {
		start, done, err := stdinPipe(cmd, o.Stdin)
		if err != nil {
			confined.Finish()
			return Result{ExitCode: -1}, err
		}
		copyStdin = start
		defer done()
	}
	if o.Stdin == nil && slave == nil {
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
			inCgroup(cmd.SysProcAttr, cg.fd)
		}
	}
	// Bounds the wait for a standard input copied from a reader once the
	// shell has ended.
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
	notReady := false
	begin := func(cmd *exec.Cmd) error {
		// A run that goes to a sandbox started ahead of time is offered
		// to it first: its helper readies the command while Ready waits
		// (for the call's start record to be on disk), and starts it only
		// at Start (internal/sandbox/helper/take.go).
		if err := confined.Offer(cmd); err != nil {
			return err
		}
		if o.Ready != nil {
			if err := o.Ready(); err != nil {
				notReady = true
				return err
			}
		}
		if err := runCtx.Err(); err != nil {
			// Ended before it began, as exec.CommandContext would report.
			notReady = true
			return err
		}
		return confined.Start(cmd)
	}
	k := &sink{out: o.Output, onChunk: o.OnChunk, onBytes: o.OnBytes,
		live: bucket{rate: float64(o.LiveRate), burst: float64(o.LiveBurst)}}
	var pipes *pipes
	if slave != nil {
		pipes, err = startWithTerminal(cmd, begin, k, o.FlushDelay, o.Terminal, slave, o.Stdin)
	} else {
		pipes, err = startWithPipes(cmd, begin, k, o.FlushDelay)
	}
	if err != nil {
		confined.Finish()
		if remembered && !notReady && errors.Is(err, fs.ErrNotExist) {
			forgetPath(argv[0])
			return Result{ExitCode: -1}, errMoved
		}
		return Result{ExitCode: -1}, err
	}
	defer pipes.close()
	copyStdin()
	start := time.Now()
	// running is the process the command runs as: cmd, or the sandbox
	// started ahead of time that it was handed to.
	running := confined.Running(cmd)
	// kill ends the group and, where there is one, everything in the
	// run's cgroup, processes that left the group included. Once the run
	// is over it does nothing: its cgroup may be another run's by then.
	var killMu sync.Mutex
	over := false
	kill := func() {
		killMu.Lock()
		defer killMu.Unlock()
		if over {
			return
		}
		_ = killGroup(running.Process.Pid)
		if cg != nil {
			cg.kill()
		}
	}
	defer func() {
		killMu.Lock()
		over = true
		killMu.Unlock()
	}()
	stop := context.AfterFunc(runCtx, kill)
	defer stop()
	if o.OnStart != nil {
		o.OnStart()
	}
	code, signal, reported := pipes.waitEnd(confined, running)
	if reported {
		// Everything the command started has ended, and its sandbox may
		// serve the session's next command: nothing is left to kill.
		killMu.Lock()
		over = true
		killMu.Unlock()
	}
	// Decided when the shell ended: a timeout firing during the drain
	// below did not end it.
	cancelled := ctx.Err() != nil
	timedOut := !cancelled && errors.Is(context.Cause(runCtx), ErrTimedOut)
	stray := pipes.drain(o.Grace, kill)
	res := Result{ExitCode: code, Stray: stray, Duration: time.Since(start),
		TimedOut: timedOut, Cancelled: cancelled, Limit: confined.Finish()}
	if signal == 0 && confined != nil && confined.Relayed && code > 128 && code <= 128+31 {
		// bubblewrap relays a death by signal as 128+N, as a shell would.
		signal, res.ExitCode = syscall.Signal(code-128), -1
	}
	if signal != 0 {
		// The signal's name as shells and Node print it (SIGTERM).
		if res.Signal = unix.SignalName(signal); res.Signal == "" {
			res.Signal = signal.String()
		}
	}
	return res, nil
}

// waitEnd reads the output until the command has ended and returns its
// exit status, or -1 and the signal that killed it, and whether the
// helper of a sandbox started ahead of time reported it. A run handed to a
// sandbox started ahead of time ends with its helper's report (the
// sandbox itself is reaped later, sandbox.Prepared.Finish); any other,
// or one whose helper ended without a report, with running's exit.
func (p *pipes) waitEnd(confined *sandbox.Prepared, running *exec.Cmd) (code int, signal syscall.Signal, reported bool) {
	if fd := confined.EndFD(); fd >= 0 {
		p.fds[2] = fd
		p.readUntil(func() bool { return p.fds[2] < 0 })
		if ex, ok := confined.Ended(); ok {
			return ex.Code, 0, true // 128+N for signal N, relayed as bubblewrap relays it
		}
	}
	p.waitExit(running)
	if ws, ok := running.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal(), false
	}
	return running.ProcessState.ExitCode(), 0, false
}

// lookPaths caches where programs named without a slash were found, by
// name and PATH: looking bash up along PATH took a tenth of the CPU time
// of starting `true`. Speed only: BenchmarkLookPathRemembered
// (./internal/process/, docs/benchmarks.md).
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

// outputPipe makes a pipe for one output stream. The read end is
// non-blocking and read by Run's own poll loop; the write end, which the
// child gets and this process closes at once, stays blocking.
func outputPipe() (r int, w *os.File, err error) {
	var p [2]int
	if err := pipeCloexec(p[:]); err != nil {
		return -1, nil, os.NewSyscallError("pipe2", err)
	}
	if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_SETFL, unix.O_NONBLOCK); err != nil {
		_ = unix.Close(p[0])
		_ = unix.Close(p[1])
		return -1, nil, os.NewSyscallError("fcntl", err)
	}
	return p[0], os.NewFile(uintptr(p[1]), "|1"), nil
}

// pipes are the read ends of stdout and stderr, read by one poll loop on
// the goroutine that runs the command: it waits in one system call for
// output and for the shell's end, where reader goroutines and a wait for
// the exit would each cost a hand-off between threads.
type pipes struct {
	// fds are the read ends of stdout and stderr and, while the shell
	// runs, its pidfd; -1 once closed.
	fds     [3]int
	streams [2]*streamer
	buf     *[]byte
	// tick, when set, bounds each poll: the end is then learnt otherwise.
	tick time.Duration
	// input is a terminal's master as written by the input copy; closed
	// with the rest.
	input *os.File
}

// start starts cmd: a sandboxed run's Prepared.Start, which may begin it
// inside its limit cgroups.
func startWithPipes(cmd *exec.Cmd, start func(*exec.Cmd) error, k *sink, delay time.Duration) (*pipes, error) {
	p := &pipes{fds: [3]int{-1, -1, -1}}
	var writers []*os.File
	closeAll := func() {
		for _, w := range writers {
			w.Close()
		}
		p.close()
	}
	for i, name := range []string{"stdout", "stderr"} {
		r, w, err := outputPipe()
		if err != nil {
			closeAll()
			return nil, err
		}
		p.fds[i], writers = r, append(writers, w)
		p.streams[i] = &streamer{name: name, sink: k, delay: delay}
	}
	cmd.Stdout, cmd.Stderr = writers[0], writers[1]
	if err := start(cmd); err != nil {
		closeAll()
		return nil, err
	}
	for _, w := range writers {
		w.Close() // the child holds its own copies
	}
	p.buf = readBuffers.Get().(*[]byte)
	return p, nil
}

// pidfdOpen is unix.PidfdOpen (sys_linux.go); tests make it fail.
var pidfdOpen = sysPidfdOpen

// waitExit reads the output until the shell has ended, then waits for it
// (running.ProcessState is set on return).
func (p *pipes) waitExit(running *exec.Cmd) {
	fd, err := pidfdOpen(running.Process.Pid, 0)
	if err != nil {
		// No pidfd (an old kernel, a filter): a goroutine waits, and the
		// loop looks every few milliseconds whether it is done.
		waited := make(chan struct{})
		go func() {
			_ = running.Wait()
			close(waited)
		}()
		p.tick = 5 * time.Millisecond
		p.readUntil(func() bool {
			select {
			case <-waited:
				return true
			default:
				return false
			}
		})
		p.tick = 0
		<-waited // readUntil also returns once both pipes have ended
		return
	}
	p.fds[2] = fd
	p.readUntil(func() bool { return p.fds[2] < 0 })
	_ = running.Wait() // the shell has ended: this only reaps it
}

// readUntil polls and reads until done reports true or, when done is nil,
// until both pipes have ended; it stops at the deadline, if one is set.
// The third descriptor is closed once it is ready.
func (p *pipes) readUntil(done func() bool, deadline ...time.Time) bool {
	var pfd [3]unix.PollFd
	for {
		if done != nil && done() || p.fds[0] < 0 && p.fds[1] < 0 && p.fds[2] < 0 {
			return true
		}
		timeout := -1
		if len(deadline) > 0 {
			left := time.Until(deadline[0])
			if left <= 0 {
				return false
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		if p.tick > 0 && (timeout < 0 || timeout > int(p.tick/time.Millisecond)) {
			timeout = int(p.tick / time.Millisecond)
		}
		for i, fd := range p.fds {
			pfd[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
		}
		if _, err := unix.Poll(pfd[:], timeout); err != nil {
			if err == unix.EINTR {
				continue
			}
			// Not expected; read what is there rather than spin.
			for i := range 3 {
				pfd[i].Revents = unix.POLLIN
			}
		}
		for i := range 2 {
			if pfd[i].Revents != 0 && p.fds[i] >= 0 {
				p.read(i)
			}
		}
		if pfd[2].Revents != 0 && p.fds[2] >= 0 {
			_ = unix.Close(p.fds[2])
			p.fds[2] = -1
		}
	}
}

// read reads once from stream i; at its end it flushes what is left and
// closes the pipe.
func (p *pipes) read(i int) {
	n, err := unix.Read(p.fds[i], *p.buf)
	if n > 0 {
		p.streams[i].add((*p.buf)[:n])
		return
	}
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	p.end(i)
}

// end flushes stream i and closes its pipe.
func (p *pipes) end(i int) {
	p.streams[i].end()
	_ = unix.Close(p.fds[i])
	p.fds[i] = -1
}

// drain reads both pipes to their end once the shell has ended. Processes
// that keep them open past the grace period (a background job, a daemon)
// are killed, and the pipes are closed under them so that nothing waits
// any longer; it reports whether that was needed. A timeout or a
// cancellation has killed the group already (Run's context.AfterFunc),
// yet what the killed processes wrote before is still read to the end.
func (p *pipes) drain(grace time.Duration, kill func()) (stray bool) {
	if p.readUntil(nil, time.Now().Add(grace)) {
		return false
	}
	kill()
	// Killed processes release the pipes at once; only one that left the
	// group (setsid) where there is no cgroup can hold them now.
	p.readUntil(nil, time.Now().Add(100*time.Millisecond))
	return true
}

// close closes what is still open and ends the streams whose pipes were
// abandoned.
func (p *pipes) close() {
	for i := range 2 {
		if p.fds[i] >= 0 {
			p.end(i)
		}
	}
	if p.fds[2] >= 0 {
		_ = unix.Close(p.fds[2])
		p.fds[2] = -1
	}
	if p.input != nil {
		_ = p.input.Close()
		p.input = nil
	}
	if p.buf != nil {
		readBuffers.Put(p.buf)
		p.buf = nil
	}
}

// killGroup kills every process of the group led by pid.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
