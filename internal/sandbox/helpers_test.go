package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// outcome is how a confined command ended.
type outcome struct {
	out   string
	code  int
	limit string
}

// runIn runs a bash script confined by s and waits at most a minute. A
// sandbox of the way modeWarm hands it to a sandbox started ahead.
func runIn(t *testing.T, s *Sandbox, r Run, script string) outcome {
	t.Helper()
	if _, ok := warmTests.Load(s); ok {
		return runWarm(t, s, r, script)
	}
	p, err := s.Prepare([]string{"bash", "-c", script}, os.Environ(), r)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.Argv[0], p.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, r.Workspace, p.ExtraFiles
	// A group of its own, killed afterwards: without bubblewrap's PID
	// namespace nothing else ends what the command left behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	defer func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	o := outcome{out: buf.String(), limit: p.Finish()}
	o.code = exitCode(t, err)
	if ctx.Err() != nil {
		t.Fatalf("the command did not end within a minute: %s", o.out)
	}
	return o
}

// onDisk makes a directory on the root file system (not under /tmp, which
// the sandbox replaces anyway, so that a test there would prove nothing).
func onDisk(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// newTest is a sandbox of the given mode (or way, modeWarm) with home as
// its $HOME; it skips when the machine lacks the mode (CI has both).
func newTest(t *testing.T, cfg Config, home string) *Sandbox {
	t.Helper()
	warm := cfg.Mode == modeWarm
	if warm {
		cfg.Mode = ModeBwrap
	}
	s := New(cfg)
	t.Cleanup(s.Close)
	if warm {
		warmTests.Store(s, true)
	}
	if s.Mode() == InForceUnavailable {
		if os.Getenv("CI") != "" {
			t.Fatalf("sandbox unavailable on CI: %s", s.Info().Reason)
		}
		t.Skipf("sandbox unavailable: %s", s.Info().Reason)
	}
	s.home = home
	return s
}

// writeFile writes name under dir, making its parents.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// modes are the confined modes.
var modes = []string{ModeBwrap, ModeLandlock}

// modeWarm is bwrap mode with each run handed to a sandbox started ahead
// of time (warm.go), as toolgate's runner does after its first run.
const modeWarm = "bwrap-started-ahead"

// ways are the ways every escape case runs under: the modes, and bwrap
// mode with sandboxes started ahead.
var ways = []string{ModeBwrap, modeWarm, ModeLandlock}

// warmTests holds the sandboxes newTest made for modeWarm.
var warmTests sync.Map // *Sandbox -> true

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// exitCode is the exit status of a command whose Run or Wait returned err;
// any failure other than an exit status fails the test.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		t.Fatalf("run: %v", err)
	}
	return 0
}
