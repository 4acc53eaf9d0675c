package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkSequentialSandboxedTrue runs `bash -c true` confined as
// toolgate's runner does (bwrap mode, handed to a sandbox started ahead),
// one command right after the other as a sequential caller sends them,
// with one sandbox kept started ahead per configuration and with
// warmDepth, in alternating blocks of 20, and `bash -c true` unconfined
// between them. It reports each one's median latency, what each adds
// to the unconfined one, the medians of its parts (Prepare, waiting for
// a sandbox still starting included; the hand-over until the command
// runs; the release of its limits after it ended), and how many runs
// were handed to a sandbox started ahead.
//
//	go test -run '^$' -bench SequentialSandboxedTrue -benchtime 10x ./internal/sandbox
func BenchmarkSequentialSandboxedTrue(b *testing.B) {
	depths := []int{1, warmDepth}
	boxes := make([]*Sandbox, len(depths))
	for i, d := range depths {
		s := New(Config{Mode: ModeBwrap})
		if s.Mode() != InForceBwrap {
			b.Skipf("no bubblewrap: %s", s.Info().Reason)
		}
		defer s.Close()
		s.helper = helperBinary(b)
		s.warm.depth = d
		boxes[i] = s
	}
	ws := b.TempDir()
	argv := []string{"bash", "-c", "true"}
	// The parts of a confined run: Prepare (waiting for a sandbox still
	// starting included), the hand-over until the command runs, and the
	// release of its limits after it ended.
	prep, handOver, finish := map[*Sandbox][]time.Duration{}, map[*Sandbox][]time.Duration{}, map[*Sandbox][]time.Duration{}
	run := func(s *Sandbox) (time.Duration, bool) {
		start := time.Now()
		a, env := argv, os.Environ()
		var p *Prepared
		if s != nil {
			var err error
			if p, err = s.Prepare(argv, env, Run{Workspace: ws, StartOnThread: true, Warm: true}); err != nil {
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
		if err := p.Running(cmd).Wait(); err != nil {
			b.Fatal(err)
		}
		ready := p != nil && p.warm != nil
		ended := time.Now()
		p.Finish()
		if s != nil {
			finish[s] = append(finish[s], time.Since(ended))
		}
		return time.Since(start), ready
	}
	const block = 20
	lat := make([][]time.Duration, len(depths))
	ready := make([]int, len(depths))
	var plain []time.Duration
	for b.Loop() {
		for i, s := range boxes {
			for range block {
				d, ok := run(s)
				lat[i] = append(lat[i], d)
				if ok {
					ready[i]++
				}
			}
			for range block / len(boxes) {
				d, _ := run(nil)
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
	for i, d := range depths {
		m := median(lat[i])
		b.ReportMetric(m, fmt.Sprintf("ms-depth%d-median", d))
		b.ReportMetric(m-mp, fmt.Sprintf("ms-depth%d-added", d))
		b.ReportMetric(median(prep[boxes[i]]), fmt.Sprintf("ms-depth%d-prepare-median", d))
		b.ReportMetric(median(handOver[boxes[i]]), fmt.Sprintf("ms-depth%d-handover-median", d))
		b.ReportMetric(median(finish[boxes[i]]), fmt.Sprintf("ms-depth%d-finish-median", d))
		b.ReportMetric(100*float64(ready[i])/float64(len(lat[i])), fmt.Sprintf("%%-depth%d-started-ahead", d))
	}
}
