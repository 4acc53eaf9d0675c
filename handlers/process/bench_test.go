package process

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkChunkLatency measures the time from a child's write to its
// chunk reaching OnChunk, with 1 and with 50 commands at once: the
// runner's share of the end-to-end latency (server/exec_bench_test.go
// measures it through SSE).
func BenchmarkChunkLatency(b *testing.B) {
	const cmd = `f=$(mktemp -u) && mkfifo $f && exec 3<>$f && rm $f; ` +
		`for i in {1..20}; do echo $EPOCHREALTIME; read -t 0.02 -u 3; done; true`
	for _, n := range []int{1, 50} {
		b.Run(fmt.Sprintf("concurrent=%d", n), func(b *testing.B) {
			var mu sync.Mutex
			var lat []time.Duration
			for range b.N {
				var wg sync.WaitGroup
				for range n {
					wg.Go(func() {
						out := NewOutput(OutputLimits{})
						defer out.Remove()
						_, err := Run(b.Context(), Options{Command: cmd, Output: out, OnChunk: func(_, chunk string) {
							now := time.Now()
							for _, f := range strings.Fields(chunk) {
								if sec, err := strconv.ParseFloat(f, 64); err == nil {
									mu.Lock()
									lat = append(lat, now.Sub(time.UnixMicro(int64(sec*1e6))))
									mu.Unlock()
								}
							}
						}})
						if err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
			}
			slices.Sort(lat)
			q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
			b.ReportMetric(q(0.5), "p50_ms")
			b.ReportMetric(q(0.99), "p99_ms")
			b.ReportMetric(q(1), "max_ms")
		})
	}
}
