package process

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/testproc"
	"github.com/toolgate/toolgate/internal/testwait"
)

// TestSandboxStartedAheadEndsWithItsRun: in bwrap mode every run but the
// first goes to a sandbox started ahead of time, whose process the run
// did not start. A timeout and a cancel still end it, and its output,
// stdin and exit status are the run's.
func TestSandboxStartedAheadEndsWithItsRun(t *testing.T) {
	opts := bwrapRuns(t)
	// The first run has the next one's sandbox started.
	if res, out := run(t, t.Context(), opts("true")); res.ExitCode != 0 {
		t.Fatalf("true: %+v %s", res, text(t, out))
	}
	o := opts("read -r line; echo \"got $line\"; echo oops >&2; exit 7")
	o.Stdin = strings.NewReader("input\n")
	res, out := run(t, t.Context(), o)
	if got := text(t, out); res.ExitCode != 7 || !strings.Contains(got, "got input") || !strings.Contains(got, "oops") {
		t.Errorf("exit %d, output %q; want 7 and the run's output", res.ExitCode, got)
	}
	ended := make(chan Result, 1)
	go func() {
		o := opts("sleep 600")
		o.Timeout = 300 * time.Millisecond
		res, _ := run(t, t.Context(), o)
		ended <- res
	}()
	if res := testwait.Receive(t, ended); !res.TimedOut || res.Signal != "SIGKILL" {
		t.Errorf("timeout: TimedOut %v, signal %q; want true, SIGKILL", res.TimedOut, res.Signal)
	}
	ctx, cancel := context.WithCancel(t.Context())
	c := newChunks()
	go func() {
		o := opts("echo started; sleep 600")
		o.OnChunk = c.add
		res, _ := run(t, ctx, o)
		ended <- res
	}()
	c.waitFor(t, "started")
	cancel()
	if res := testwait.Receive(t, ended); !res.Cancelled || res.Signal != "SIGKILL" {
		t.Errorf("cancel: Cancelled %v, signal %q; want true, SIGKILL", res.Cancelled, res.Signal)
	}
}

// TestStartedAheadLeftoversDeadBeforeTheAnswer: a run handed to a sandbox
// started ahead of time is answered from its helper's report, before the
// sandbox itself has ended; what the command left running (nohup,
// setsid, a double fork) is dead by then, and a death by signal is
// reported as before.
func TestStartedAheadLeftoversDeadBeforeTheAnswer(t *testing.T) {
	opts := bwrapRuns(t)
	if res, out := run(t, t.Context(), opts("true")); res.ExitCode != 0 {
		t.Fatalf("true: %+v %s", res, text(t, out))
	}
	marker := fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, 7)
	res, out := run(t, t.Context(), opts(fmt.Sprintf(
		`nohup sleep %[1]s1 >/dev/null 2>&1 & setsid sleep %[1]s2 >/dev/null 2>&1 & (sleep %[1]s3 >/dev/null 2>&1 &); echo spawned`, marker)))
	if left := testproc.Matching("sleep " + marker); len(left) > 0 {
		t.Errorf("still running when the run was answered: %v", left)
	}
	if got := text(t, out); res.ExitCode != 0 || !strings.Contains(got, "spawned") {
		t.Errorf("exit %d, output %q", res.ExitCode, got)
	}
	res, _ = run(t, t.Context(), opts("kill -TERM $$"))
	if res.ExitCode != -1 || res.Signal != "SIGTERM" {
		t.Errorf("killed by SIGTERM: exit %d, signal %q; want -1, SIGTERM", res.ExitCode, res.Signal)
	}
}

// bwrapRuns makes a bubblewrap sandbox for the test (skipping it where
// bubblewrap cannot run) and returns the options of a run of command in
// a fresh workspace through it.
func bwrapRuns(t *testing.T) func(command string) Options {
	t.Helper()
	sb := sandbox.New(sandbox.Config{Mode: sandbox.ModeBwrap})
	if sb.Mode() != sandbox.InForceBwrap {
		t.Skipf("no bubblewrap here: %s", sb.Info().Reason)
	}
	t.Cleanup(sb.Close)
	ws := t.TempDir()
	return func(command string) Options {
		return Options{Command: command, Dir: ws, Env: os.Environ(), Sandbox: sb, Confine: sandbox.Run{Workspace: ws}}
	}
}
