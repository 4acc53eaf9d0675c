package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkSequentialSandboxedTrue runs `bash -c true` confined as
// toolgate's runner does (bwrap mode, handed to a sandbox started ahead),
// one command right after the other as a sequential caller sends them,
// with one sandbox kept started ahead per configuration, with warmDepth,
// and with warmDepth but the run's end as it was before (plain-end: its
// mount namespace left to its sandbox's exit instead of held, holdMounts;
// its limit cgroups removed in Finish, not after, finishLater), and with
// warmDepth but toolgate-sandbox built with cgo (cgo-helper: dynamically
// linked, as go build makes it by default), in alternating blocks of 20, and `bash -c true` unconfined between them. It reports each one's median latency, what each adds
// to the unconfined one, the medians of its parts (Prepare, waiting for
// a sandbox still starting included; the hand-over until the command
// runs; the release of its limits after it ended), the CPU time per run
// (this process's and its reaped children's, bubblewrap and the command
// included, whatever ran meanwhile too: sandboxes started ahead in the
// background), and how many runs were handed to a sandbox started ahead.
//
//	go test -run '^$' -bench SequentialSandboxedTrue -benchtime 10x ./internal/sandbox
func BenchmarkSequentialSandboxedTrue(b *testing.B) {
	variants := []struct {
		name     string
		depth    int
		plainEnd bool
		cgo      bool
		bwrapEnd bool // waits for bubblewrap's exit, not the helper's report
		session  bool // the runs are one session's: its sandbox serves them all (reuse.go)
	}{{"depth1", 1, false, false, false, false}, {fmt.Sprintf("depth%d", warmDepth), warmDepth, false, false, false, false},
		{"session", warmDepth, false, false, false, true},
		{"plain-end", warmDepth, true, false, false, false}, {"bwrap-exit", warmDepth, false, false, true, false},
		{"cgo-helper", warmDepth, false, true, false, false}}
	if _, err := builtCgoHelper(); err != nil {
		// No C compiler: the variant is left out, the others still run.
		b.Logf("cgo-helper left out: go build with cgo: %v", err)
		variants = variants[:len(variants)-1]
	}
	boxes := make([]*Sandbox, len(variants))
	for i, v := range variants {
		s := New(Config{Mode: ModeBwrap})
		if s.Mode() != InForceBwrap {
			b.Skipf("no bubblewrap: %s", s.Info().Reason)
		}
		defer s.Close()
		s.helper = helperBinary(b)
		if v.cgo {
			s.helper, _ = builtCgoHelper()
		}
		s.warm.depth, s.warm.plainEnd = v.depth, v.plainEnd
		boxes[i] = s
	}
	ws := b.TempDir()
	argv := []string{"bash", "-c", "true"}
	// The parts of a confined run: Prepare (waiting for a sandbox still
	// starting included), the hand-over until the command runs, and the
	// release of its limits after it ended.
	prep, handOver, finish, wait := map[*Sandbox][]time.Duration{}, map[*Sandbox][]time.Duration{}, map[*Sandbox][]time.Duration{}, map[*Sandbox][]time.Duration{}
	bwrapEnd, session := map[*Sandbox]bool{}, map[*Sandbox]string{}
	for i, v := range variants {
		bwrapEnd[boxes[i]] = v.bwrapEnd
		if v.session {
			session[boxes[i]] = "bench"
		}
	}
	run := func(s *Sandbox) (time.Duration, bool) {
		start := time.Now()
		a, env := argv, os.Environ()
		var p *Prepared
		if s != nil {
			var err error
			if p, err = s.Prepare(argv, env, Run{Workspace: ws, StartOnThread: true, Warm: true, Session: session[s]}); err != nil {
				b.Fatal(err)
			}
			prep[s] = append(prep[s], time.Since(start))
			a, env = p.Argv, p.Env
		}
		cmd := exec.Command(a[0], a[1:]...)
		cmd.Env, cmd.Dir = env, ws
		if p != nil {
			cmd.ExtraFiles = p.ExtraFiles
		}
		started := time.Now()
		if err := p.Start(cmd); err != nil {
			b.Fatal(err)
		}
		if s != nil {
			handOver[s] = append(handOver[s], time.Since(started))
		}
		if bwrapEnd[s] {
			if err := p.Running(cmd).Wait(); err != nil {
				b.Fatal(err)
			}
		} else if code := waitRun(b, p, cmd); code != 0 {
			b.Fatalf("exit status %d", code)
		}
		ready := p != nil && p.warm != nil
		ended := time.Now()
		if s != nil {
			wait[s] = append(wait[s], ended.Sub(started)-handOver[s][len(handOver[s])-1])
		}
		p.Finish()
		if s != nil {
			finish[s] = append(finish[s], time.Since(ended))
		}
		return time.Since(start), ready
	}
	const block = 20
	cpu := make([]time.Duration, len(variants)+1) // the last: unconfined
	timed := func(i int, s *Sandbox) (time.Duration, bool) {
		before := cpuTime()
		d, ok := run(s)
		cpu[i] += cpuTime() - before
		return d, ok
	}
	lat := make([][]time.Duration, len(variants))
	ready := make([]int, len(variants))
	var plain []time.Duration
	for b.Loop() {
		for i, s := range boxes {
			for range block {
				d, ok := timed(i, s)
				lat[i] = append(lat[i], d)
				if ok {
					ready[i]++
				}
			}
			for range block / len(boxes) {
				d, _ := timed(len(variants), nil)
				plain = append(plain, d)
			}
		}
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	mp := median(plain)
	b.ReportMetric(mp, "ms-plain-median")
	b.ReportMetric(float64(cpu[len(variants)].Microseconds())/float64(len(plain)), "cpu-µs-plain")
	for i, v := range variants {
		m := median(lat[i])
		b.ReportMetric(m, fmt.Sprintf("ms-%s-median", v.name))
		b.ReportMetric(m-mp, fmt.Sprintf("ms-%s-added", v.name))
		b.ReportMetric(float64(cpu[i].Microseconds())/float64(len(lat[i])), fmt.Sprintf("cpu-µs-%s", v.name))
		b.ReportMetric(median(prep[boxes[i]]), fmt.Sprintf("ms-%s-prepare-median", v.name))
		b.ReportMetric(median(handOver[boxes[i]]), fmt.Sprintf("ms-%s-handover-median", v.name))
		b.ReportMetric(median(wait[boxes[i]]), fmt.Sprintf("ms-%s-wait-median", v.name))
		b.ReportMetric(median(finish[boxes[i]]), fmt.Sprintf("ms-%s-finish-median", v.name))
		b.ReportMetric(100*float64(ready[i])/float64(len(lat[i])), fmt.Sprintf("%%-%s-started-ahead", v.name))
	}
}

// waitRun waits for a started run as toolgate's runner does: for the
// report of the helper of a sandbox started ahead, else for the process's
// exit; it returns the exit status.
func waitRun(tb testing.TB, p *Prepared, cmd *exec.Cmd) int {
	tb.Helper()
	if fd := p.EndFD(); fd >= 0 {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(pfd, -1); err != unix.EINTR {
				break
			}
		}
		_ = unix.Close(fd)
		if ex, ok := p.Ended(); ok {
			return ex.Code
		}
	}
	err := p.Running(cmd).Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	return 0
}

// cpuTime is the CPU time of this process and of its children it reaped.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
