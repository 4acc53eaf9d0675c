package sandbox_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// BenchmarkSessionNetworkTrue measures what joining a session's network
// adds to a command: `true` run as toolgate's runner runs it (handed to a
// sandbox started ahead of time where one is ready), in an empty network
// namespace of its own and in a session's network, alternated so that both
// see the same load. It reports both medians and their ratio.
//
//	go test -run '^$' -bench SessionNetworkTrue -benchtime 200x ./internal/sandbox
func BenchmarkSessionNetworkTrue(b *testing.B) {
	s := sandbox.New(sandbox.Config{Mode: sandbox.ModeBwrap})
	defer s.Close()
	if s.Mode() != sandbox.InForceBwrap {
		b.Skipf("no bubblewrap: %s", s.Info().Reason)
	}
	n, err := s.NewNetwork(sandbox.NetworkOptions{})
	if err != nil {
		b.Skipf("no session network: %v", err)
	}
	defer n.Close()
	ws := b.TempDir()
	run := func(net *sandbox.Network) time.Duration {
		out := process.NewOutput(process.OutputLimits{})
		defer out.Remove()
		start := time.Now()
		res, err := process.Run(context.Background(), process.Options{Sandbox: s, Confine: sandbox.Run{Workspace: ws, Net: net},
			Command: "true", Env: os.Environ(), Output: out})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("run: %v %+v", err, res)
		}
		return time.Since(start)
	}
	run(nil) // both ways start with a sandbox started ahead
	run(n)
	var own, session []time.Duration
	b.ResetTimer()
	for range b.N {
		own = append(own, run(nil))
		session = append(session, run(n))
	}
	b.StopTimer()
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	mo, ms := median(own), median(session)
	b.ReportMetric(float64(mo.Microseconds())/1000, "own-netns-ms")
	b.ReportMetric(float64(ms.Microseconds())/1000, "session-netns-ms")
	b.ReportMetric(float64(ms)/float64(mo), "ratio")
}
