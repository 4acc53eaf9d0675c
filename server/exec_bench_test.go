package server

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// latencyCommand prints its own clock 20 times, 20 ms apart; the reader
// subtracts it from its arrival time. It waits with read -t on a FIFO
// instead of forking sleep, so that 50 of them measure the server rather
// than fork and exec on a small machine.
const latencyCommand = `f=$(mktemp -u) && mkfifo $f && exec 3<>$f && rm $f; ` +
	`for i in {1..20}; do echo $EPOCHREALTIME; read -t 0.02 -u 3; done; true`

// BenchmarkCommandChunkLatency measures the time from a child's write to
// the SSE client reading the chunk, each command streamed on its own
// per-request SSE response, with 1 and with 50 commands at once.
func BenchmarkCommandChunkLatency(b *testing.B) {
	for _, n := range []int{1, 50} {
		b.Run(fmt.Sprintf("concurrent=%d", n), func(b *testing.B) {
			s := newExecServer(b)
			sid := s.session(b)
			var mu sync.Mutex
			var lat []time.Duration
			for i := range b.N {
				var wg sync.WaitGroup
				for j := range n {
					wg.Go(func() {
						d := streamLatencies(b, s, sid, fmt.Sprintf("toolu_b%d_%d", i, j))
						mu.Lock()
						lat = append(lat, d...)
						mu.Unlock()
					})
				}
				wg.Wait()
			}
			slices.Sort(lat)
			if len(lat) == 0 {
				b.Fatal("no chunks")
			}
			q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
			b.ReportMetric(q(0.5), "p50_ms")
			b.ReportMetric(q(0.99), "p99_ms")
			b.ReportMetric(q(1), "max_ms")
			b.ReportMetric(float64(len(lat))/float64(b.N), "lines/op")
		})
	}
}

// streamLatencies posts one command with Accept: text/event-stream and
// returns each printed line's delay until the client read it.
func streamLatencies(b *testing.B, s *execServer, sid, id string) []time.Duration {
	resp := s.request(b, b.Context(), "POST", "/v1/sessions/"+sid+"/messages", message(commandUse(id, latencyCommand)), "text/event-stream")
	if resp.StatusCode != http.StatusOK {
		b.Errorf("status %d", resp.StatusCode)
		resp.Body.Close()
		return nil
	}
	defer resp.Body.Close()
	var out []time.Duration
	for r := range readExecSSE(resp.Body) {
		if r.ev.Type == api.EventMessageFinished {
			break
		}
		if r.ev.Type == api.EventToolAwaitingApproval {
			// The command's $(...) and fifo path always ask, even under
			// allow_all; approving comes before its first write.
			s.request(b, b.Context(), "POST", "/v1/sessions/"+sid+"/calls/"+id+"/decision",
				map[string]any{"decision": "approve"}, "").Body.Close()
			continue
		}
		if r.ev.Type != api.EventToolOutput {
			continue
		}
		for _, line := range strings.Fields(r.ev.Chunk) {
			sec, err := strconv.ParseFloat(line, 64)
			if err != nil {
				continue
			}
			wrote := time.UnixMicro(int64(sec * 1e6))
			out = append(out, r.at.Sub(wrote))
		}
	}
	return out
}
