package sandbox

import (
	"bytes"
	"os"
	"os/exec"
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
				t.Helper()
				deadline := time.Now().Add(30 * time.Second)
				for {
					p, err := s.Prepare([]string{"bash", "-c", "sleep 0.5; cat /proc/self/cgroup"}, os.Environ(), Run{Workspace: ws, StartOnThread: true})
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

// commandOf is the prepared command, its output collected.
func commandOf(p *Prepared, dir string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, dir, p.ExtraFiles
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	return cmd, &buf
}
