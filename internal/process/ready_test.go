package process

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox"
)

// heldRun runs `touch marker` in session a of s with a Ready that waits
// until the test releases it and then returns err, and returns the
// marker's path and the run's end.
func (s *sessionRuns) heldRun(entered chan<- struct{}, release <-chan struct{}, err error) (string, <-chan error) {
	marker := filepath.Join(s.ws, "marker")
	ended := make(chan error, 1)
	go func() {
		out := NewOutput(OutputLimits{Dir: s.t.TempDir()})
		defer out.Remove()
		_, runErr := Run(s.t.Context(), Options{Command: "touch marker", Dir: s.ws, Env: os.Environ(), Sandbox: s.sb, Output: out,
			Confine: sandbox.Run{Workspace: s.ws, Session: "a"},
			Ready: func() error {
				entered <- struct{}{}
				<-release
				return err
			}})
		_ = out.Close()
		ended <- runErr
	}()
	return marker, ended
}

// absent fails the test if path shows up within a while. Nothing marks
// the helper readying a command it was offered, so a command that did
// not wait is given ample time (touch takes milliseconds) to show itself.
func absent(t *testing.T, path, why string) {
	t.Helper()
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			t.Fatal(why)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestOfferedCommandWaitsForReady: a command offered to a sandbox started
// ahead of time, and then to the session's kept one, runs only once
// Ready returned, although its helper has it before (helper/take.go);
// with Ready failing it never runs, and the session's next command still
// runs.
func TestOfferedCommandWaitsForReady(t *testing.T) {
	s := newSessionRuns(t, sandbox.Config{})
	for i, where := range []string{"a sandbox started ahead", "the session's kept sandbox"} {
		entered, release := make(chan struct{}, 1), make(chan struct{})
		marker, ended := s.heldRun(entered, release, nil)
		receive(t, entered)
		absent(t, marker, "the command ran in "+where+" before Ready returned")
		close(release)
		if err := receive(t, ended); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("the command did not run in %s once ready: %v", where, err)
		}
		if err := os.Remove(marker); err != nil {
			t.Fatal(err)
		}
	}
	entered, release := make(chan struct{}, 1), make(chan struct{})
	notRecorded := errors.New("not recorded")
	marker, ended := s.heldRun(entered, release, notRecorded)
	receive(t, entered)
	close(release)
	if err := receive(t, ended); !errors.Is(err, notRecorded) {
		t.Fatalf("Run = %v, want Ready's error", err)
	}
	absent(t, marker, "the command ran although Ready failed")
	if _, out := s.run("a", "echo next"); !strings.Contains(out, "next") {
		t.Fatalf("the session's next command: %q", out)
	}
}
