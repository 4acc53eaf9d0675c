package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// chunks collects live chunks per stream.
type chunks struct {
	mu   sync.Mutex
	by   map[string][]string
	seen chan string
}

func newChunks() *chunks { return &chunks{by: map[string][]string{}, seen: make(chan string, 1<<16)} }

func (c *chunks) add(stream, chunk string) {
	c.mu.Lock()
	c.by[stream] = append(c.by[stream], chunk)
	c.mu.Unlock()
	select {
	case c.seen <- chunk:
	default:
	}
}

func (c *chunks) joined(stream string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.by[stream], "")
}

// waitFor reads live chunks until one contains want.
func (c *chunks) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-c.seen:
			if strings.Contains(got, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no live chunk containing %q", want)
		}
	}
}

func run(t *testing.T, ctx context.Context, o Options) (Result, *Output) {
	t.Helper()
	if o.Output == nil {
		o.Output = NewOutput(OutputLimits{Dir: t.TempDir()})
	}
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("Run(%q): %v", o.Command, err)
	}
	o.Output.Close()
	t.Cleanup(func() { o.Output.Remove() })
	return res, o.Output
}

func text(t *testing.T, out *Output) string {
	t.Helper()
	return out.Summary(SummaryLimits{})
}

// gone waits until pid no longer runs (a zombie counts as gone).
func gone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
			return
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("process %d still runs", pid)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name, cmd string
		code      int
		signal    string
	}{
		{"zero", "true", 0, ""},
		{"three", "exit 3", 3, ""},
		{"not found", "no-such-command-xyz", 127, ""},
		{"signal", "kill -TERM $$", -1, "SIGTERM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := run(t, t.Context(), Options{Command: tc.cmd})
			if res.ExitCode != tc.code || res.Signal != tc.signal {
				t.Errorf("exit %d signal %q, want %d %q", res.ExitCode, res.Signal, tc.code, tc.signal)
			}
		})
	}
}

func TestOutput(t *testing.T) {
	t.Run("combined in order", func(t *testing.T) {
		c := newChunks()
		res, out := run(t, t.Context(), Options{Command: "for i in 1 2 3; do echo out$i; echo err$i >&2; done", OnChunk: c.add})
		if res.ExitCode != 0 {
			t.Fatalf("exit %d", res.ExitCode)
		}
		if got, want := c.joined("stdout"), "out1\nout2\nout3\n"; got != want {
			t.Errorf("stdout chunks %q, want %q", got, want)
		}
		if got, want := c.joined("stderr"), "err1\nerr2\nerr3\n"; got != want {
			t.Errorf("stderr chunks %q, want %q", got, want)
		}
		if got := text(t, out); len(got) != 30 || !strings.Contains(got, "out3\n") || !strings.Contains(got, "err3\n") {
			t.Errorf("combined output %q", got)
		}
	})
	t.Run("stdin is empty", func(t *testing.T) {
		_, out := run(t, t.Context(), Options{Command: "cat; read x; echo read=$?"})
		if got, want := text(t, out), "read=1\n"; got != want {
			t.Errorf("output %q, want %q", got, want)
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		_, out := run(t, t.Context(), Options{Command: "exec 3</dev/tty && echo has-tty || echo no-tty"})
		if got := text(t, out); !strings.Contains(got, "no-tty") {
			t.Errorf("output %q: the child could open a terminal", got)
		}
	})
	t.Run("partial line flushed before exit", func(t *testing.T) {
		c := newChunks()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan Result, 1)
		go func() {
			res, _ := Run(ctx, Options{Command: "printf 'prompt> '; sleep 30", OnChunk: c.add, Output: NewOutput(OutputLimits{})})
			done <- res
		}()
		c.waitFor(t, "prompt> ")
		cancel()
		if res := receive(t, done); !res.Cancelled {
			t.Errorf("Cancelled = false, want true")
		}
	})
	t.Run("bytes counted per stream", func(t *testing.T) {
		var mu sync.Mutex
		n := map[string]int{}
		run(t, t.Context(), Options{Command: "printf abc; printf de >&2", OnBytes: func(s string, k int) {
			mu.Lock()
			n[s] += k
			mu.Unlock()
		}})
		if n["stdout"] != 3 || n["stderr"] != 2 {
			t.Errorf("bytes %v, want stdout 3 stderr 2", n)
		}
	})
}

func TestTimeoutKillsGroup(t *testing.T) {
	c := newChunks()
	res, out := run(t, t.Context(), Options{
		Command: "sleep 999 & echo child=$!; sh -c 'sleep 999 & echo grandchild=$!; sleep 999'",
		Timeout: 300 * time.Millisecond, OnChunk: c.add,
	})
	if !res.TimedOut || res.Cancelled {
		t.Errorf("TimedOut %v Cancelled %v, want true false", res.TimedOut, res.Cancelled)
	}
	got := text(t, out)
	for _, key := range []string{"child=", "grandchild="} {
		_, rest, ok := strings.Cut(got, key)
		if !ok {
			t.Fatalf("output %q lacks %s (the output so far)", got, key)
		}
		pid, err := strconv.Atoi(strings.Fields(rest)[0])
		if err != nil {
			t.Fatal(err)
		}
		gone(t, pid)
	}
}

func TestCancel(t *testing.T) {
	c := newChunks()
	ctx, cancel := context.WithCancel(t.Context())
	type ended struct {
		res Result
		out *Output
	}
	done := make(chan ended, 1)
	go func() {
		out := NewOutput(OutputLimits{Dir: t.TempDir()})
		res, _ := Run(ctx, Options{Command: "echo started; sh -c 'sleep 999 & sleep 999'", OnChunk: c.add, Output: out})
		out.Close()
		done <- ended{res, out}
	}()
	c.waitFor(t, "started")
	cancel()
	e := receive(t, done)
	if !e.res.Cancelled || e.res.TimedOut {
		t.Errorf("Cancelled %v TimedOut %v, want true false", e.res.Cancelled, e.res.TimedOut)
	}
	if got := text(t, e.out); got != "started\n" {
		t.Errorf("output %q, want the output so far", got)
	}
}

// backgroundJobEndedWithTheRun runs a shell that leaves a background job
// holding its output: the run ends once the shell has and the grace is
// over, says a stray held the pipes, and the job is killed with it.
func backgroundJobEndedWithTheRun(t *testing.T) {
	t.Helper()
	res, out := run(t, t.Context(), Options{Command: "sleep 999 & echo bg=$!", Grace: 200 * time.Millisecond})
	if !res.Stray || res.ExitCode != 0 {
		t.Errorf("Stray %v exit %d, want true 0", res.Stray, res.ExitCode)
	}
	_, rest, _ := strings.Cut(text(t, out), "bg=")
	pid, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil {
		t.Fatalf("output %q: %v", text(t, out), err)
	}
	gone(t, pid)
}

func TestStrayPipeHolders(t *testing.T) {
	t.Run("background job after exit", func(t *testing.T) {
		backgroundJobEndedWithTheRun(t)
	})
	t.Run("escaped the group", func(t *testing.T) {
		if _, err := os.Stat("/usr/bin/setsid"); err != nil {
			t.Skip("setsid is missing")
		}
		ctx, cancel := context.WithCancel(t.Context())
		c := newChunks()
		done := make(chan Result, 1)
		out := NewOutput(OutputLimits{})
		t.Cleanup(func() { out.Remove() })
		go func() {
			res, _ := Run(ctx, Options{Command: "setsid sh -c 'echo esc=$$; exec sleep 999' & sleep 999",
				Grace: 200 * time.Millisecond, OnChunk: c.add, Output: out})
			done <- res
		}()
		c.waitFor(t, "esc=")
		cancel()
		var res Result
		select {
		case res = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return while an escaped process held the pipes")
		}
		_, rest, _ := strings.Cut(out.Summary(SummaryLimits{}), "esc=")
		pid, err := strconv.Atoi(strings.Fields(rest)[0])
		if err != nil {
			t.Fatalf("output %q: %v", out.Summary(SummaryLimits{}), err)
		}
		if cgroups() == nil {
			// The group kill misses it: the pipes are abandoned.
			if !res.Stray || !res.Cancelled {
				t.Errorf("Stray %v Cancelled %v, want true true", res.Stray, res.Cancelled)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		// The run's cgroup holds it: the cancel kills it with the rest.
		if !res.Cancelled {
			t.Errorf("Cancelled %v, want true", res.Cancelled)
		}
		gone(t, pid)
	})
}

// A daemon that left the group and let go of the output survives the
// group kill; in the run's cgroup a timeout ends it too.
func TestTimeoutKillsEscapedDaemon(t *testing.T) {
	if cgroups() == nil {
		t.Skip("runs get no cgroup here (no writable cgroup v2); the process group is all a timeout kills")
	}
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("setsid is missing")
	}
	res, out := run(t, t.Context(), Options{
		Command: "setsid sh -c 'exec sleep 999' </dev/null >/dev/null 2>&1 & echo daemon=$!; sleep 999",
		Timeout: 300 * time.Millisecond})
	if !res.TimedOut {
		t.Errorf("TimedOut %v, want true", res.TimedOut)
	}
	_, rest, _ := strings.Cut(text(t, out), "daemon=")
	pid, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil {
		t.Fatalf("output %q: %v", text(t, out), err)
	}
	gone(t, pid)
}

// A daemon the command started on purpose outlives a run that ends by
// itself; its cgroup is removed once it is empty.
func TestDaemonOutlivesFinishedRun(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("setsid is missing")
	}
	res, out := run(t, t.Context(), Options{Command: "setsid sh -c 'exec sleep 999' </dev/null >/dev/null 2>&1 & echo daemon=$!"})
	_, rest, _ := strings.Cut(text(t, out), "daemon=")
	pid, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exit %d, output %q: %v", res.ExitCode, text(t, out), err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("the daemon did not outlive the run: %v", err)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	gone(t, pid)
	if p := cgroups(); p != nil {
		// The next run sweeps emptied cgroups before taking its own; what
		// is left are empty cgroups kept for the next runs.
		run(t, t.Context(), Options{Command: "true"})
		p.mu.Lock()
		kept := map[string]bool{}
		for _, cg := range p.free {
			kept[filepath.Base(cg.dir)] = cg.empty()
		}
		p.mu.Unlock()
		entries, _ := os.ReadDir(p.dir)
		for _, e := range entries {
			if empty, ok := kept[e.Name()]; e.IsDir() && (!ok || !empty) {
				t.Errorf("cgroup %s left behind (kept for reuse %v, empty %v)", e.Name(), ok, empty)
			}
		}
	}
}

// A cgroup that still holds a daemon of a finished run is never given to
// another run: that run's timeout kills its own processes, not the daemon.
func TestDaemonSurvivesLaterRunsTimeout(t *testing.T) {
	if cgroups() == nil {
		t.Skip("runs get no cgroup here (no writable cgroup v2)")
	}
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("setsid is missing")
	}
	// A run first, so that the daemon's run takes a cgroup kept for reuse
	// whose cgroup.events was read when it was empty: read again, it must
	// say the daemon is there.
	run(t, t.Context(), Options{Command: "true"})
	res, out := run(t, t.Context(), Options{Command: "setsid sh -c 'exec sleep 999' </dev/null >/dev/null 2>&1 & echo daemon=$!"})
	_, rest, _ := strings.Cut(text(t, out), "daemon=")
	pid, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exit %d, output %q: %v", res.ExitCode, text(t, out), err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	for range 3 {
		if res, _ := run(t, t.Context(), Options{Command: "sleep 999", Timeout: 100 * time.Millisecond}); !res.TimedOut {
			t.Fatalf("TimedOut %v, want true", res.TimedOut)
		}
	}
	if !running(pid) {
		t.Errorf("a later run's timeout killed the daemon")
	}
}

// running reports whether pid is a process that has not exited (a zombie
// has).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat))
	return len(f) > 2 && f[2] != "Z"
}

func TestStartFailure(t *testing.T) {
	_, err := Run(t.Context(), Options{Command: "true", Dir: "/no/such/dir", Output: NewOutput(OutputLimits{})})
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want not exist", err)
	}
}

func TestEndlessOutputBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	out := NewOutput(OutputLimits{Dir: dir, Full: 4 << 20})
	var live sync.Map
	var liveBytes int64
	var mu sync.Mutex
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { // stop once far more than every limit has been printed
		for out.Total() < 64<<20 && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	res, err := Run(ctx, Options{Command: "yes", Output: out, OnChunk: func(s, c string) {
		mu.Lock()
		liveBytes += int64(len(c))
		mu.Unlock()
		live.Store(s, true)
	}})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	out.Close()
	defer out.Remove()
	if !res.Cancelled {
		t.Errorf("Cancelled = false")
	}
	if got := out.Total(); got < 64<<20 {
		t.Errorf("total %d bytes, want at least 64 MiB", got)
	}
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 24<<20 {
		t.Errorf("heap grew by %d MiB while printing %d MiB", grew>>20, out.Total()>>20)
	}
	if out.Size() > 4<<20+(256<<10)+200 {
		t.Errorf("full output %d bytes, want at most the cap plus the tail", out.Size())
	}
	if liveBytes > 16<<20 {
		t.Errorf("%d MiB streamed live; the live budget should bound it", liveBytes>>20)
	}
	if _, ok := live.Load("stdout"); !ok {
		t.Errorf("nothing streamed live")
	}
	sum := out.Summary(SummaryLimits{})
	if lines := strings.Count(sum, "\n"); lines > 1010 || !strings.Contains(sum, "lines (") {
		t.Errorf("summary has %d lines, want about 1000 and a note", lines)
	}
}

// Cgroups that toolgate processes which have ended left behind are
// removed when a new process finds its own.
func TestStaleCgroupsSwept(t *testing.T) {
	p := cgroups()
	if p == nil {
		t.Skip("runs get no cgroup here (no writable cgroup v2)")
	}
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(p.dir)
	stale := filepath.Join(parent, fmt.Sprintf("toolgate-%d", ended.Process.Pid))
	if err := os.MkdirAll(filepath.Join(stale, "run-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	sweepStale(parent)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale cgroup %s: %v, want removed", stale, err)
	}
	if _, err := os.Stat(p.dir); err != nil {
		t.Errorf("this process's cgroup: %v", err)
	}
}

// TestCancelKillsGroupWithoutCgroups runs with cgroups turned off, as on a
// system without cgroup v2 write access: cancelling must still end the
// shell's children and grandchildren, through the process group alone.
// Where cgroups are available, cgroup.kill would hide a broken group kill
// from the other tests.
func TestCancelKillsGroupWithoutCgroups(t *testing.T) {
	saved := cgroups
	cgroups = func() *cgroupParent { return nil }
	t.Cleanup(func() { cgroups = saved })
	c := newChunks()
	ctx, cancel := context.WithCancel(t.Context())
	type ended struct {
		res Result
		out *Output
	}
	done := make(chan ended, 1)
	go func() {
		out := NewOutput(OutputLimits{Dir: t.TempDir()})
		res, _ := Run(ctx, Options{Command: "sleep 999 & echo child=$!; sh -c 'sleep 999 & echo grandchild=$!; sleep 999'",
			OnChunk: c.add, Output: out, Grace: 200 * time.Millisecond})
		out.Close()
		done <- ended{res, out}
	}()
	c.waitFor(t, "grandchild=")
	cancel()
	var e ended
	select {
	case e = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled run did not end")
	}
	if !e.res.Cancelled {
		t.Errorf("Cancelled = false, want true")
	}
	got := text(t, e.out)
	for _, key := range []string{"child=", "grandchild="} {
		_, rest, ok := strings.Cut(got, key)
		if !ok {
			t.Fatalf("output %q lacks %s", got, key)
		}
		pid, err := strconv.Atoi(strings.Fields(rest)[0])
		if err != nil {
			t.Fatal(err)
		}
		gone(t, pid)
	}
	if e.res.Stray {
		t.Errorf("the group kill left processes holding the output (Stray)")
	}
}

// Runs after a timed-out one start normally: a cgroup that was killed in
// goes on killing what starts in it, so it is never given to another run.
func TestRunAfterTimedOutRun(t *testing.T) {
	if res, _ := run(t, t.Context(), Options{Command: "sleep 999", Timeout: 100 * time.Millisecond}); !res.TimedOut {
		t.Fatalf("TimedOut %v, want true", res.TimedOut)
	}
	for range 3 {
		res, out := run(t, t.Context(), Options{Command: "echo hi"})
		if res.ExitCode != 0 || res.Signal != "" || text(t, out) != "hi\n" {
			t.Fatalf("exit %d signal %q output %q, want 0 and hi", res.ExitCode, res.Signal, text(t, out))
		}
	}
}

// bash is looked up along the server's PATH as it is when a run starts,
// though where it was found is remembered; $0 stays "bash".
func TestBashFollowsPATH(t *testing.T) {
	if res, out := run(t, t.Context(), Options{Command: "echo $0"}); res.ExitCode != 0 || text(t, out) != "bash\n" {
		t.Fatalf("exit %d output %q, want bash", res.ExitCode, text(t, out))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bash"), []byte("#!/bin/sh\necho other bash\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if res, out := run(t, t.Context(), Options{Command: "true"}); res.ExitCode != 0 || text(t, out) != "other bash\n" {
		t.Errorf("exit %d output %q, want the bash first on PATH", res.ExitCode, text(t, out))
	}
	if err := os.Remove(filepath.Join(dir, "bash")); err != nil {
		t.Fatal(err)
	}
	// Gone from where it was found: looked up again.
	if res, out := run(t, t.Context(), Options{Command: "echo $0"}); res.ExitCode != 0 || text(t, out) != "bash\n" {
		t.Errorf("exit %d output %q, want the system's bash", res.ExitCode, text(t, out))
	}
}

// Where pidfds cannot be had, a run still streams its output, learns of
// the shell's end while a background job holds the pipes, and is ended by
// its timeout.
func TestRunWithoutPidfd(t *testing.T) {
	saved := pidfdOpen
	pidfdOpen = func(int, int) (int, error) { return -1, syscall.ENOSYS }
	t.Cleanup(func() { pidfdOpen = saved })

	c := newChunks()
	res, out := run(t, t.Context(), Options{Command: "echo out; echo err >&2; exit 4", OnChunk: c.add})
	if res.ExitCode != 4 || c.joined("stdout") != "out\n" || c.joined("stderr") != "err\n" || text(t, out) == "" {
		t.Errorf("exit %d stdout %q stderr %q, want 4 out err", res.ExitCode, c.joined("stdout"), c.joined("stderr"))
	}
	backgroundJobEndedWithTheRun(t)
	if res, _ := run(t, t.Context(), Options{Command: "sleep 999", Timeout: 100 * time.Millisecond}); !res.TimedOut || res.Signal != "SIGKILL" {
		t.Errorf("TimedOut %v signal %q, want true SIGKILL", res.TimedOut, res.Signal)
	}
}

// bash is started by the path it was found at, so that it does not look
// itself up along PATH as it starts; $0, $BASH and the prefix of its error
// messages stay what they were.
func TestBashStartedByItsPath(t *testing.T) {
	want, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	res, out := run(t, t.Context(), Options{Command: `tr '\0' '\n' < /proc/$$/cmdline | head -1; echo "$0 $BASH"; no-such-command-xyz`})
	lines := strings.Split(strings.TrimSpace(text(t, out)), "\n")
	if res.ExitCode != 127 || len(lines) != 3 {
		t.Fatalf("exit %d output %q", res.ExitCode, text(t, out))
	}
	if lines[0] != want {
		t.Errorf("argv[0] %q, want %q", lines[0], want)
	}
	if lines[1] != "bash "+want {
		t.Errorf("$0 $BASH = %q, want %q", lines[1], "bash "+want)
	}
	if !strings.HasPrefix(lines[2], "bash: ") {
		t.Errorf("error line %q, want it to start with bash: ", lines[2])
	}
}
