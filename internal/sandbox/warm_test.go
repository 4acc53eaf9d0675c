package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testproc"
	"github.com/toolgate/toolgate/internal/testwait"
)

// runWarm runs a bash script as toolgate's runner does (internal/process):
// handed to a sandbox started ahead of time, its output through a pipe,
// waiting for Prepared.Running. The first run of a configuration starts
// the sandbox the second gets; the test fails if the run does not get one.
func runWarm(t *testing.T, s *Sandbox, r Run, script string) outcome {
	t.Helper()
	p := prepareStartedAhead(t, s, []string{"bash", "-c", script}, r)
	return runPrepared(t, p, r.Workspace, nil)
}

// prepareStartedAhead prepares argv until it goes to a sandbox started ahead: one
// that does not starts the sandbox the next one takes.
func prepareStartedAhead(t *testing.T, s *Sandbox, argv []string, r Run) *Prepared {
	t.Helper()
	r.Warm, r.StartOnThread = true, true
	for range 3 {
		p, err := s.Prepare(argv, os.Environ(), r)
		if err != nil {
			t.Fatalf("Prepare: %v", err)
		}
		if p.warm != nil {
			return p
		}
		p.Finish()
	}
	t.Fatal("the run did not go to a sandbox started ahead of time")
	return nil
}

// runPrepared runs a prepared run with stdin and waits at most a minute.
func runPrepared(t *testing.T, p *Prepared, dir string, stdin io.Reader) outcome {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.ExtraFiles, cmd.Stdin = p.Env, dir, p.ExtraFiles, stdin
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = p.Start(cmd)
	pw.Close()
	if err != nil {
		p.Finish()
		t.Fatalf("Start: %v", err)
	}
	running := p.Running(cmd)
	ctx, cancel := context.WithTimeoutCause(t.Context(), time.Minute, errMinute)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { _ = syscall.Kill(-running.Process.Pid, syscall.SIGKILL) })
	defer stop()
	if limit := p.LimitReached(); limit != nil {
		// As toolgate's runner does: a run at its limit is ended.
		go func() {
			select {
			case <-limit:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	var buf bytes.Buffer
	read := make(chan struct{})
	go func() { _, _ = buf.ReadFrom(pr); close(read) }()
	err = running.Wait()
	o := outcome{limit: p.Finish()}
	select {
	case <-read:
	case <-time.After(time.Minute):
		t.Fatal("the output pipe stayed open a minute after the command ended")
	}
	o.out = buf.String()
	o.code = exitCode(t, err)
	if errors.Is(context.Cause(ctx), errMinute) {
		t.Fatalf("the command did not end within a minute (limit %q): %s", o.limit, o.out)
	}
	return o
}

var errMinute = errors.New("a minute passed")

// TestStartedAheadRunGetsItsOwnCommand checks that a run handed to a
// sandbox started ahead of time runs with its own argv, environment,
// directory, standard streams and exit status, and that nothing of the
// run that had the sandbox started (its environment) shows inside.
func TestStartedAheadRunGetsItsOwnCommand(t *testing.T) {
	t.Setenv("TOOLGATE_PROCESS_ONLY", "process-secret") // toolgate's own, given to no run
	s := newTest(t, Config{Mode: ModeBwrap}, "")
	ws := onDisk(t)
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r := Run{Workspace: ws, Dir: sub, Warm: true, StartOnThread: true}
	// This run has the next one's sandbox started, with its environment.
	first, err := s.Prepare([]string{"true"}, []string{"PATH=" + os.Getenv("PATH"), "EARLIER_RUN=earlier-secret"}, r)
	if err != nil {
		t.Fatal(err)
	}
	first.Finish()
	script := `echo "pwd=$(pwd) PWD=$PWD var=$PER_RUN"; read -r line; echo "stdin=$line"; echo to-stderr >&2; ` +
		`cat /proc/*/environ 2>/dev/null | tr '\0' '\n' | grep -c -e earlier-secret -e process-secret; exit 3`
	p := prepareStartedAhead(t, s, []string{"bash", "-c", script}, r)
	p.Env = []string{"PATH=" + os.Getenv("PATH"), "PER_RUN=this-run"}
	o := runPrepared(t, p, ws, strings.NewReader("from stdin\n"))
	for _, want := range []string{"pwd=" + sub + " PWD=" + sub + " var=this-run", "stdin=from stdin", "to-stderr", "\n0\n"} {
		if !strings.Contains(o.out, want) {
			t.Errorf("output lacks %q:\n%s", want, o.out)
		}
	}
	if o.code != 3 {
		t.Errorf("exit status %d, want 3\n%s", o.code, o.out)
	}
}

// TestStartedAheadSandboxFollowsTheMasks checks that a sandbox started
// for one set of masks does not serve a run with another: a file the
// ignore rules hide since is hidden from the next run too.
func TestStartedAheadSandboxFollowsTheMasks(t *testing.T) {
	s := newTest(t, Config{Mode: ModeBwrap}, "")
	ws := onDisk(t)
	a := writeFile(t, ws, "a.env", "A-SECRET")
	b := writeFile(t, ws, "b.env", "B-SECRET")
	if o := runIn(t, s, Run{Workspace: ws, Warm: true, StartOnThread: true, Hide: []string{a}}, "cat a.env b.env"); !contains(o.out, "B-SECRET") {
		t.Fatalf("b.env, not yet hidden, could not be read:\n%s", o.out)
	}
	r := Run{Workspace: ws, Warm: true, StartOnThread: true, Hide: []string{a, b}}
	p, err := s.Prepare([]string{"bash", "-c", "cat a.env b.env"}, os.Environ(), r)
	if err != nil {
		t.Fatal(err)
	}
	if p.warm != nil {
		t.Error("the sandbox started with only a.env masked served a run that masks b.env too")
	}
	o := runPrepared(t, p, ws, nil)
	o2 := runWarm(t, s, r, "cat a.env b.env")
	if contains(o.out+o2.out, "SECRET") {
		t.Errorf("a masked file was read:\n%s%s", o.out, o2.out)
	}
}

// TestStartedAheadSandboxWithAMaskGoneIsNotUsed: a path removed or renamed
// outside takes the sandbox's mask on it along (a mount in another mount
// namespace goes with its path), so a sandbox started before an editor
// saved an ignored file anew, or before ~/.ssh was made anew, would show
// the new one. Its run must start a sandbox of its own instead.
func TestStartedAheadSandboxWithAMaskGoneIsNotUsed(t *testing.T) {
	for _, tc := range []struct{ name, path string }{
		{"ignored file saved anew", "ws/conf/.env"},
		{"credential directory made anew", "home/.ssh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := onDisk(t)
			ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
			secret := writeFile(t, ws, "conf/.env", "OLD-SECRET")
			writeFile(t, home, ".ssh/id_ed25519", "OLD-KEY")
			s := newTest(t, Config{Mode: ModeBwrap}, home)
			r := Run{Workspace: ws, Warm: true, StartOnThread: true, Hide: []string{secret}}
			script := "cat conf/.env " + filepath.Join(home, ".ssh/id_ed25519") + "; echo ran"
			if o := runWarm(t, s, r, script); contains(o.out, "SECRET") || contains(o.out, "KEY") || !contains(o.out, "ran") {
				t.Fatalf("before the change:\n%s", o.out)
			}
			// The next run's sandbox, set up: its masks are in place.
			if err := nextStartedAhead(t, s).check(); err != nil {
				t.Fatalf("the sandbox started ahead fails its check unchanged: %v", err)
			}
			// Made anew: written beside and renamed over, as editors save.
			switch tc.path {
			case "ws/conf/.env":
				tmp := writeFile(t, ws, "conf/.env.tmp", "NEW-SECRET")
				if err := os.Rename(tmp, secret); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.RemoveAll(filepath.Join(home, ".ssh")); err != nil {
					t.Fatal(err)
				}
				writeFile(t, home, ".ssh/id_ed25519", "NEW-KEY")
			}
			p, err := s.Prepare([]string{"bash", "-c", script}, os.Environ(), r)
			if err != nil {
				t.Fatal(err)
			}
			if p.warm != nil {
				t.Errorf("the run went to the sandbox whose mask on %s is gone", tc.path)
			}
			o := runPrepared(t, p, ws, nil)
			if contains(o.out, "NEW-") || !contains(o.out, "ran") {
				t.Errorf("the file made anew was read:\n%s", o.out)
			}
		})
	}
}

// TestLeftoversDieWithTheRun: what a command leaves running (nohup,
// setsid, a double fork) is gone within 2 s of its run's end, with a
// sandbox of its own and with one started ahead.
func TestLeftoversDieWithTheRun(t *testing.T) {
	for i, mode := range []string{ModeBwrap, modeWarm} {
		t.Run(mode, func(t *testing.T) {
			s := newTest(t, Config{Mode: mode}, "")
			marker := fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, i)
			o := runIn(t, s, Run{Workspace: t.TempDir()}, fmt.Sprintf(
				`nohup sleep %[1]s1 >/dev/null 2>&1 & setsid sleep %[1]s2 >/dev/null 2>&1 & (sleep %[1]s3 >/dev/null 2>&1 &) ; echo spawned`, marker))
			if !contains(o.out, "spawned") {
				t.Fatalf("the command failed:\n%s", o.out)
			}
			deadline := time.Now().Add(2 * time.Second)
			for {
				left := testproc.Matching("sleep " + marker)
				if len(left) == 0 {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("still running 2 s after the run ended: %v", left)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestCloseEndsTheSandboxStartedAhead: a closed Sandbox leaves no sandbox
// started ahead of time running, waiting for a run that will not come.
func TestCloseEndsTheSandboxStartedAhead(t *testing.T) {
	s := newTest(t, Config{Mode: ModeBwrap}, "")
	ws := onDisk(t)
	if o := runWarm(t, s, Run{Workspace: ws}, "echo ran"); !contains(o.out, "ran") {
		t.Fatalf("the run failed:\n%s", o.out)
	}
	// Its bubblewrap command line binds the workspace.
	if nextStartedAhead(t, s); len(testproc.Matching(ws)) == 0 {
		t.Fatal("no sandbox was started ahead for the next run")
	}
	s.Close()
	deadline := time.Now().Add(2 * time.Second)
	for len(testproc.Matching(ws)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still running 2 s after Close: %v", testproc.Matching(ws))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// nextStartedAhead is the sandbox started ahead for the next run like the
// last one, once it has started; it stays that run's.
func nextStartedAhead(t *testing.T, s *Sandbox) *warm {
	t.Helper()
	s.warm.mu.Lock()
	var key string
	var last uint64
	for k, e := range s.warm.slots {
		if e.used > last {
			key, last = k, e.used
		}
	}
	s.warm.mu.Unlock()
	w := s.warm.take(key)
	if w == nil {
		t.Fatal("no sandbox was started ahead for the next run")
	}
	s.warm.mu.Lock()
	e := s.warm.slots[key]
	e.ready = append([]*warm{w}, e.ready...)
	s.warm.mu.Unlock()
	return w
}

// TestStartedAheadStartReturnsWhileTheCommandRuns: Start returns once the
// command runs, not once it ends, with the network_allow relay running
// beside it too (it must not hold the control socket open: its end is how
// toolgate learns that the command was exec'd).
func TestStartedAheadStartReturnsWhileTheCommandRuns(t *testing.T) {
	for _, allow := range [][]string{nil, {"localhost"}} {
		t.Run(fmt.Sprintf("network_allow=%d", len(allow)), func(t *testing.T) {
			s := newTest(t, Config{Mode: ModeBwrap, NetworkAllow: allow}, "")
			ws := t.TempDir()
			p := prepareStartedAhead(t, s, []string{"bash", "-c", `read -r line; echo "got $line"`}, Run{Workspace: ws})
			in, feed, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer feed.Close()
			out, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
			cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Env, in, pw, pw
			started := make(chan error, 1)
			go func() { started <- p.Start(cmd) }()
			// The command waits for this line, so Start must come back first.
			if err := testwait.Receive(t, started); err != nil {
				p.Finish()
				t.Fatalf("Start: %v", err)
			}
			in.Close()
			pw.Close()
			if _, err := feed.WriteString("line\n"); err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(out)
			_ = p.Running(cmd).Wait()
			p.Finish()
			if !strings.Contains(string(got), "got line") {
				t.Errorf("output %q", got)
			}
		})
	}
}

// TestStartedAheadPerConfiguration: runs that alternate between
// configurations (two workspaces) each find a sandbox started ahead for
// theirs, and no more than maxWarm wait at a time.
func TestStartedAheadPerConfiguration(t *testing.T) {
	s := newTest(t, Config{Mode: ModeBwrap}, "")
	var wss []string
	for range maxWarm + 2 {
		wss = append(wss, t.TempDir())
	}
	for _, ws := range wss[:2] {
		runWarm(t, s, Run{Workspace: ws}, "true")
	}
	for round := range 3 {
		for _, ws := range wss[:2] {
			p, err := s.Prepare([]string{"true"}, os.Environ(), Run{Workspace: ws, Warm: true, StartOnThread: true})
			if err != nil {
				t.Fatal(err)
			}
			if p.warm == nil {
				t.Errorf("round %d, %s: no sandbox started ahead for it", round, ws)
			}
			if o := runPrepared(t, p, ws, nil); o.code != 0 {
				t.Fatalf("true failed: %s", o.out)
			}
		}
	}
	for _, ws := range wss {
		runWarm(t, s, Run{Workspace: ws}, "true")
	}
	s.warm.mu.Lock()
	n := len(s.warm.slots)
	s.warm.mu.Unlock()
	if n > maxWarm {
		t.Errorf("%d configurations have sandboxes started ahead, want at most %d", n, maxWarm)
	}
}
