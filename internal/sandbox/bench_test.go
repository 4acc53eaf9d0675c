package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkSandboxedTrue measures what the sandbox adds to a command:
// `bash -c true` unconfined, confined as toolgate starts it (from a thread
// already in the run's limit cgroups, prejoin.go) and confined with the
// helper moving itself into them (the way before, and the way when no
// pre-joined thread is ready), alternated so that all three see the same
// machine load. It reports the medians and the median added latency of
// both confined ways (goal: under 10 ms).
//
//	go test -run '^$' -bench SandboxedTrue -benchtime 200x ./internal/sandbox
func BenchmarkSandboxedTrue(b *testing.B) {
	s := New(Config{})
	if s.Mode() == InForceUnavailable {
		b.Skipf("no sandbox: %s", s.Info().Reason)
	}
	ws := b.TempDir()
	argv := []string{"bash", "-c", "true"}
	prejoinedRuns := 0
	runOnce := func(confined, onThread bool) time.Duration {
		start := time.Now()
		a, env := argv, os.Environ()
		var p *Prepared
		if confined {
			var err error
			if p, err = s.Prepare(argv, env, Run{Workspace: ws, StartOnThread: onThread}); err != nil {
				b.Fatal(err)
			}
			if p.prejoined != nil {
				prejoinedRuns++
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
		if err := cmd.Wait(); err != nil {
			b.Fatalf("run (confined %v): %v", confined, err)
		}
		p.Finish()
		return time.Since(start)
	}
	var plain, boxed, joined []time.Duration
	for b.Loop() {
		plain = append(plain, runOnce(false, false))
		boxed = append(boxed, runOnce(true, true))
		joined = append(joined, runOnce(true, false))
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	mp, mb, mj := median(plain), median(boxed), median(joined)
	b.ReportMetric(mp, "ms-plain-median")
	b.ReportMetric(mb, "ms-sandboxed-median")
	b.ReportMetric(mb-mp, "ms-added-median")
	b.ReportMetric(mb/mp, "ratio")
	b.ReportMetric(mj-mp, "ms-added-median-helper-joins")
	// How many runs began inside their limit cgroups.
	b.ReportMetric(100*float64(prejoinedRuns)/float64(len(boxed)), "%-prejoined")
}
