package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPrejoinedRunStartsInItsCgroups checks the fast start: once a
// pre-joined thread is ready, a run started through Prepared.Start begins
// inside its limit cgroups (its /proc/self/cgroup says so), keeps running
// after the thread has moved back (bubblewrap's --die-with-parent is tied
// to that thread), and a run prepared for it but started with cmd.Start
// is refused by the helper instead of running without limits.
func TestPrejoinedRunStartsInItsCgroups(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			s := newTest(t, Config{Mode: mode}, "")
			if s.cgroups == nil || !s.cgroups.prejoinable() {
				t.Skip("no cgroup v1 limit hierarchies here")
			}
			ws := t.TempDir()
			prepare := func() *Prepared {
				return preparePrejoined(t, s, []string{"bash", "-c", "sleep 0.5; cat /proc/self/cgroup"}, ws)
			}
			p := prepare()
			want := p.limits.cgroupLines()
			cmd, buf := commandOf(p, ws)
			if err := p.Start(cmd); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			out := buf.String()
			p.Finish()
			if err != nil {
				t.Fatalf("the command failed: %v\n%s", err, out)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("the command is not in %s:\n%s", w, out)
				}
			}

			p = prepare()
			cmd, buf = commandOf(p, ws)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			out = buf.String()
			p.Finish()
			if err == nil || !strings.Contains(out, "not in its limit cgroups") {
				t.Errorf("started outside its cgroups: err %v, output:\n%s", err, out)
			}
		})
	}
}

// TestFinishWaitsForThePrejoinedThread checks that a run's cgroups are
// removed when it finishes, not left behind busy: the pre-joined thread
// must have moved out of them first, both when the command was started
// from it (a command as short as true ends before the thread has moved
// back) and when it never was. Landlock mode: with bubblewrap, its PID
// namespace's init may still be exiting when the command's status is in,
// and that cgroup is then removed later (limitCgroups.sweep).
//
// Several Sandboxes in a row also check that a new one's cgroups are not
// made inside a run's cgroup of the previous one, whose pre-joined thread
// may be the main thread (ownCgroups).
func TestFinishWaitsForThePrejoinedThread(t *testing.T) {
	ws := t.TempDir()
	for round := range 3 {
		s := newTest(t, Config{Mode: "landlock"}, "")
		if s.cgroups == nil || !s.cgroups.prejoinable() {
			t.Skip("no cgroup v1 limit hierarchies here")
		}
		for _, started := range []bool{true, false} {
			for i := range 10 {
				p := preparePrejoined(t, s, []string{"true"}, ws)
				dirs := slices.Clone(p.limits.dirs)
				for _, d := range dirs {
					if n := strings.Count(d, "/run-"); n != 1 {
						t.Fatalf("round %d: run cgroup %s is inside another run's", round, d)
					}
				}
				if started {
					cmd, buf := commandOf(p, ws)
					if err := p.Start(cmd); err != nil {
						t.Fatal(err)
					}
					if err := cmd.Wait(); err != nil {
						t.Fatalf("true failed: %v\n%s", err, buf)
					}
				}
				p.Finish()
				for _, d := range dirs {
					if _, err := os.Stat(d); !os.IsNotExist(err) {
						tasks, _ := os.ReadFile(filepath.Join(d, "tasks"))
						t.Fatalf("round %d, started %v, run %d: cgroup %s left behind after Finish (stat: %v, tasks %q)", round, started, i, d, err, tasks)
					}
				}
			}
		}
	}
}

// preparePrejoined prepares argv until the run gets a pre-joined thread
// (the first ones may come before one is ready).
func preparePrejoined(t *testing.T, s *Sandbox, argv []string, ws string) *Prepared {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p, err := s.Prepare(argv, os.Environ(), Run{Workspace: ws, StartOnThread: true})
		if err != nil {
			t.Fatal(err)
		}
		if p.prejoined != nil {
			return p
		}
		p.Finish() // none ready yet: the next one is being made
		if time.Now().After(deadline) {
			t.Fatal("no pre-joined run became ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// commandOf is the prepared command, its output collected.
func commandOf(p *Prepared, dir string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, dir, p.ExtraFiles
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	return cmd, &buf
}
