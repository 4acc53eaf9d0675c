package coordinator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// sleepIn is the input of the benchmark tool: sleep for ms, safe or not.
type sleepIn struct {
	MS   int  `json:"ms"`
	Safe bool `json:"safe,omitempty"`
}

// benchCoordinator registers "sleep", which sleeps and counts how many
// calls ran at once.
func benchCoordinator(b *testing.B) (*coordinator.Coordinator, *coordinator.Session, *atomic.Int64) {
	b.Helper()
	var running, peak atomic.Int64
	reg := tool.Registration{Name: "sleep", Factory: func(string, tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[sleepIn]{
			Name: "sleep", Description: "sleeps",
			Run: func(ctx context.Context, _ *tool.Call, in *sleepIn) (tool.Result, error) {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				if in.MS > 0 {
					time.Sleep(time.Duration(in.MS) * time.Millisecond)
				}
				running.Add(-1)
				return tool.TextResult("ok"), nil
			},
			ConcurrencySafe: func(in *sleepIn) bool { return in.Safe },
		})
	}}
	c := coordinator.New(coordinator.Options{Tools: []tool.Registration{reg}})
	b.Cleanup(c.Close)
	s, err := c.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		b.Fatal(err)
	}
	return c, s, &peak
}

func sleepUses(iter, n, ms int, safe bool) []api.ToolUse {
	raw, _ := json.Marshal(sleepIn{MS: ms, Safe: safe})
	uses := make([]api.ToolUse, n)
	for i := range uses {
		uses[i] = api.ToolUse{Type: api.TypeToolUse, ID: fmt.Sprintf("t%d_%d", iter, i), Name: "sleep", Input: raw}
	}
	return uses
}

// benchMessage runs messages of n calls of T each and reports the wall
// time of a message in units of T, and the most calls seen running at once.
func benchMessage(b *testing.B, n int, safe bool) {
	const tMS = 20
	c, s, peak := benchCoordinator(b)
	var total time.Duration
	i := 0
	for b.Loop() {
		uses := sleepUses(i, n, tMS, safe)
		i++
		start := time.Now()
		c.RunMessage(context.Background(), s, "m", uses)
		total += time.Since(start)
	}
	b.ReportMetric(float64(total)/float64(i)/float64(tMS*time.Millisecond), "T/msg")
	b.ReportMetric(float64(peak.Load()), "max_parallel")
}

// BenchmarkMessage10SafeCalls: 10 safe calls of T should take about 1 T.
func BenchmarkMessage10SafeCalls(b *testing.B) { benchMessage(b, 10, true) }

// BenchmarkMessage10UnsafeCalls: 10 unsafe calls of T take at least 10 T
// and never overlap (max_parallel 1).
func BenchmarkMessage10UnsafeCalls(b *testing.B) { benchMessage(b, 10, false) }

// BenchmarkSchedulerOverhead runs 1000 trivial calls per message, through
// the scheduler and, for comparison, one by one through Execute (the
// pipeline without the scheduler); the difference is the scheduler's own
// cost per call.
func BenchmarkSchedulerOverhead(b *testing.B) {
	const n = 1000
	for _, mode := range []string{"scheduled_safe", "scheduled_unsafe", "execute_serial"} {
		b.Run(mode, func(b *testing.B) {
			c, s, _ := benchCoordinator(b)
			i := 0
			var total time.Duration
			for b.Loop() {
				uses := sleepUses(i, n, 0, mode == "scheduled_safe")
				i++
				start := time.Now()
				if mode == "execute_serial" {
					for _, u := range uses {
						c.Execute(context.Background(), s, "m", u)
					}
				} else {
					c.RunMessage(context.Background(), s, "m", uses)
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(i*n), "µs/call")
		})
	}
}
