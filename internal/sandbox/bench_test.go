package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkSandboxedTrue measures what the sandbox adds to a command:
// `bash -c true` unconfined, and confined as toolgate starts it: handed
// to a sandbox started ahead of time (warm.go; in bwrap mode) with the
// helper binaries a real install has, toolgate-sandbox beside toolgate
// (the default) and toolgate's own binary re-executed (without
// toolgate-sandbox). And, as before sandboxes were started ahead, a
// sandbox of the run's own, started from a thread already in the run's
// limit cgroups (prejoin.go), and with toolgate-sandbox moving itself
// into the cgroups (when no pre-joined thread is ready). The five are
// alternated so that all see the same machine load. It reports the
// medians and the median added latency of each confined way (goal: under
// 10 ms).
//
//	go test -run '^$' -bench SandboxedTrue -benchtime 200x ./internal/sandbox
//
// It runs once per mode: bwrap (the default where bubblewrap works) and
// landlock (no namespaces to set up).
func BenchmarkSandboxedTrue(b *testing.B) {
	for _, mode := range modes {
		b.Run(mode, func(b *testing.B) { benchSandboxedTrue(b, mode) })
	}
}

func benchSandboxedTrue(b *testing.B, mode string) {
	s, self := New(Config{Mode: mode}), New(Config{Mode: mode})
	if s.Mode() == InForceUnavailable {
		b.Skipf("no sandbox: %s", s.Info().Reason)
	}
	defer s.Close()
	defer self.Close()
	s.helper = helperBinary(b)
	toolgate := filepath.Join(b.TempDir(), "toolgate")
	if out, err := exec.Command("go", "build", "-o", toolgate, "github.com/toolgate/toolgate/cmd/toolgate").CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/toolgate: %v\n%s", err, out)
	}
	self.helper = toolgate
	ws := b.TempDir()
	argv := []string{"bash", "-c", "true"}
	prejoinedRuns, warmRuns := 0, 0
	runOnce := func(s *Sandbox, confined, onThread, warm bool) time.Duration {
		start := time.Now()
		a, env := argv, os.Environ()
		var p *Prepared
		if confined {
			var err error
			if p, err = s.Prepare(argv, env, Run{Workspace: ws, StartOnThread: onThread, Warm: warm}); err != nil {
				b.Fatal(err)
			}
			if p.prejoined != nil && s.helper != toolgate && !warm {
				prejoinedRuns++
			}
			if p.warm != nil && s.helper != toolgate {
				warmRuns++
			}
			a, env = p.Argv, p.Env
		}
		cmd := exec.Command(a[0], a[1:]...)
		cmd.Env, cmd.Dir = env, ws
		if p != nil {
			cmd.ExtraFiles = p.ExtraFiles
		}
		if err := p.Start(cmd); err != nil {
			b.Fatalf("start (confined %v): %v", confined, err)
		}
		if code := waitRun(b, p, cmd); code != 0 {
			b.Fatalf("run (confined %v): exit status %d", confined, code)
		}
		p.Finish()
		return time.Since(start)
	}
	var plain, boxed, selfBoxed, cold, joined []time.Duration
	for b.Loop() {
		plain = append(plain, runOnce(s, false, false, false))
		boxed = append(boxed, runOnce(s, true, true, true))
		selfBoxed = append(selfBoxed, runOnce(self, true, true, true))
		cold = append(cold, runOnce(s, true, true, false))
		joined = append(joined, runOnce(s, true, false, false))
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	mp, mb, ms, mc, mj := median(plain), median(boxed), median(selfBoxed), median(cold), median(joined)
	b.ReportMetric(mp, "ms-plain-median")
	b.ReportMetric(mb, "ms-sandboxed-median")
	b.ReportMetric(mb-mp, "ms-added-median")
	b.ReportMetric(mb/mp, "ratio")
	b.ReportMetric(ms-mp, "ms-added-median-toolgate-as-helper")
	b.ReportMetric(mc-mp, "ms-added-median-own-sandbox")
	b.ReportMetric(mj-mp, "ms-added-median-own-sandbox-helper-joins")
	// How many runs went to a sandbox started ahead (bwrap mode).
	b.ReportMetric(100*float64(warmRuns)/float64(len(boxed)), "%-started-ahead")
	// How many runs of their own sandbox began inside their limit cgroups.
	b.ReportMetric(100*float64(prejoinedRuns)/float64(len(cold)), "%-prejoined")
}
