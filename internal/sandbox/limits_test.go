package sandbox

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testwait"
)

func TestForkBombEndsAtTheProcessLimit(t *testing.T) {
	for _, mode := range ways {
		t.Run(mode, func(t *testing.T) {
			s := newTest(t, Config{Mode: mode, MaxProcesses: 64}, "")
			if s.cgroups == nil || !s.cgroups.has("pids") {
				t.Skip("no pids cgroup here; root is not bound by RLIMIT_NPROC")
			}
			// Each copy starts two more and waits: without a limit it
			// would fill the machine's process table.
			o := runIn(t, s, Run{Workspace: t.TempDir()}, `bomb() { bomb | bomb & wait; }; bomb; wait; exit 3`)
			if o.limit == "" || !contains(o.limit, "process limit") {
				t.Errorf("limit = %q, want the process limit named (exit %d)", o.limit, o.code)
			}
		})
	}
}

func TestMemoryHogEndsAtTheMemoryLimit(t *testing.T) {
	for _, mode := range ways {
		t.Run(mode, func(t *testing.T) {
			s := newTest(t, Config{Mode: mode, MaxMemoryBytes: 64 << 20}, "")
			// tail keeps the current line in memory, and /dev/zero has
			// no newline.
			o := runIn(t, s, Run{Workspace: t.TempDir()}, `tail /dev/zero; echo "tail ended: $?"`)
			if contains(o.out, "tail ended: 0") {
				t.Fatalf("the memory hog succeeded:\n%s", o.out)
			}
			// Either the kernel killed it at the cgroup's limit (the
			// reason names it) or an allocation failed and tail said so.
			if s.cgroups != nil && s.cgroups.has("memory") && !contains(o.limit, "memory limit") && !contains(o.out, "memory exhausted") {
				t.Errorf("limit = %q, want the memory limit named\n%s", o.limit, o.out)
			}
		})
	}
}

// TestForkBombInCgroupsMadeAheadIsReported: cgroups made ahead of their
// run, with a thread waiting in them (prejoin.go) or with a sandbox started
// in them (warm.go), are watched from when the run takes them: the run is
// told it reached its limit, and the runner then ends it.
func TestForkBombInCgroupsMadeAheadIsReported(t *testing.T) {
	bomb := []string{"bash", "-c", `bomb() { bomb | bomb & wait; }; bomb; wait; exit 3`}
	for _, ahead := range []string{"pre-joined thread", "sandbox started ahead"} {
		t.Run(ahead, func(t *testing.T) {
			s := newTest(t, Config{Mode: ModeBwrap, MaxProcesses: 64}, "")
			if s.cgroups == nil || !s.cgroups.has("pids") {
				t.Skip("no pids cgroup here")
			}
			ws := t.TempDir()
			var p *Prepared
			if ahead == "pre-joined thread" {
				if !s.cgroups.prejoinable() {
					t.Skip("no cgroup v1 hierarchies here")
				}
				p = preparePrejoined(t, s, bomb, ws)
			} else {
				p = prepareStartedAhead(t, s, bomb, Run{Workspace: ws})
			}
			cmd, _ := commandOf(p, ws)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			cmd.Stdout, cmd.Stderr = pw, pw
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			err = p.Start(cmd)
			pw.Close()
			if err != nil {
				p.Finish()
				t.Fatal(err)
			}
			go func() { _, _ = io.Copy(io.Discard, pr) }()
			running := p.Running(cmd)
			reached := make(chan bool, 1)
			go func() {
				select {
				case <-p.LimitReached():
					reached <- true
				case <-time.After(testwait.Limit):
					reached <- false
				}
				_ = syscall.Kill(-running.Process.Pid, syscall.SIGKILL) // as the runner does
			}()
			_ = running.Wait()
			if !<-reached {
				t.Errorf("the limit was not reported within %v", testwait.Limit)
			}
			if limit := p.Finish(); !contains(limit, "process limit") {
				t.Errorf("limit = %q, want the process limit named", limit)
			}
		})
	}
}
