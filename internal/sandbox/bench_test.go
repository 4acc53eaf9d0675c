package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkSandboxedTrue measures what the sandbox adds to a command:
// `bash -c true` unconfined and confined, alternated so that both see the
// same machine load, and reports the medians and the median added
// latency (goal: under 10 ms).
//
//	go test -run '^$' -bench SandboxedTrue -benchtime 200x ./internal/sandbox
func BenchmarkSandboxedTrue(b *testing.B) {
	s := New(Config{})
	if s.Mode() == InForceUnavailable {
		b.Skipf("no sandbox: %s", s.Info().Reason)
	}
	ws := b.TempDir()
	argv := []string{"bash", "-c", "true"}
	runOnce := func(confined bool) time.Duration {
		start := time.Now()
		a, env := argv, os.Environ()
		var p *Prepared
		if confined {
			var err error
			if p, err = s.Prepare(argv, env, Run{Workspace: ws}); err != nil {
				b.Fatal(err)
			}
			a, env = p.Argv, p.Env
		}
		cmd := exec.Command(a[0], a[1:]...)
		cmd.Env, cmd.Dir = env, ws
		if p != nil {
			cmd.ExtraFiles = p.ExtraFiles
		}
		if err := cmd.Run(); err != nil {
			b.Fatalf("run (confined %v): %v", confined, err)
		}
		p.Finish()
		return time.Since(start)
	}
	var plain, boxed []time.Duration
	for b.Loop() {
		plain = append(plain, runOnce(false))
		boxed = append(boxed, runOnce(true))
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	mp, mb := median(plain), median(boxed)
	b.ReportMetric(mp, "ms-plain-median")
	b.ReportMetric(mb, "ms-sandboxed-median")
	b.ReportMetric(mb-mp, "ms-added-median")
	b.ReportMetric(mb/mp, "ratio")
}
