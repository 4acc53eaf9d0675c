package server

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/process"
)

// latencyCommand prints its own clock 20 times, 20 ms apart; the reader
// subtracts it from its arrival time. It first says "ready" and waits at
// the round's gate, so that the timed lines come from commands that all
// run at once rather than from bash start-ups competing for the cores. It
// waits with read -t on a FIFO nobody writes instead of forking sleep.
const latencyCommand = `exec 3<>idle.fifo; echo ready; read -r _ <gate.fifo; ` +
	`for i in {1..20}; do echo $EPOCHREALTIME; read -t 0.02 -u 3; done; true`

// BenchmarkCommandChunkLatency measures the time from a child's write to
// the SSE client reading the chunk, each command streamed on its own
// per-request SSE response, with 1 and with 50 commands at once. The
// runner sub-benchmarks are the baseline run side by side: the same
// commands, timed up to the runner's OnChunk, with no server in between.
// "gated" times 50 commands running together; "at-once" also has their
// 50 bash start-ups competing with the timed lines for the cores.
func BenchmarkCommandChunkLatency(b *testing.B) {
	for _, start := range []string{"gated", "at-once"} {
		for _, n := range []int{1, 50} {
			b.Run(fmt.Sprintf("start=%s/path=runner/concurrent=%d", start, n), func(b *testing.B) {
				dir := b.TempDir()
				g := newGate(b, dir, start == "at-once")
				benchRounds(b, n, g, func(_, _ int, ready func(), record func(time.Duration)) {
					out := process.NewOutput(process.OutputLimits{})
					defer out.Remove()
					_, err := process.Run(b.Context(), process.Options{Command: latencyCommand, Dir: dir, Output: out,
						OnChunk: func(_, chunk string) { clockLines(chunk, time.Now(), ready, record) }})
					if err != nil {
						b.Error(err)
					}
				})
			})
			b.Run(fmt.Sprintf("start=%s/path=sse/concurrent=%d", start, n), func(b *testing.B) {
				s := newExecServer(b)
				sid := s.session(b)
				g := newGate(b, s.dir, start == "at-once")
				benchRounds(b, n, g, func(round, j int, ready func(), record func(time.Duration)) {
					streamLatencies(b, s, sid, fmt.Sprintf("toolu_b%d_%d", round, j), ready, record)
				})
			})
		}
	}
}

// gate holds a round's commands until all of them are running. An
// at-once gate lets them through as they come: the timed lines then
// overlap the other commands' start-ups.
type gate struct {
	f      *os.File
	atOnce bool
}

func newGate(b *testing.B, dir string, atOnce bool) *gate {
	for _, name := range []string{"gate.fifo", "idle.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	// Held open for reading and writing, so that a command opening it
	// never waits for a writer and never sees its end.
	f, err := os.OpenFile(filepath.Join(dir, "gate.fifo"), os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return &gate{f: f, atOnce: atOnce}
}

// open lets n waiting commands go: bash reads a FIFO a byte at a time, so
// each takes exactly one line.
func (g *gate) open(b *testing.B, n int) {
	if _, err := g.f.Write(bytes.Repeat([]byte("\n"), n)); err != nil {
		b.Fatal(err)
	}
}

// benchRounds runs b.N rounds of n commands started by run (each knows its
// round and index, which name its call), opens the
// gate once all n are ready, and reports the latency quantiles.
func benchRounds(b *testing.B, n int, g *gate, run func(round, j int, ready func(), record func(time.Duration))) {
	var mu sync.Mutex
	var lat []time.Duration
	record := func(d time.Duration) {
		mu.Lock()
		lat = append(lat, d)
		mu.Unlock()
	}
	for round := range b.N {
		var ready, done sync.WaitGroup
		ready.Add(n)
		if g.atOnce {
			g.open(b, n)
		}
		for j := range n {
			done.Go(func() { run(round, j, sync.OnceFunc(ready.Done), record) })
		}
		ready.Wait()
		if !g.atOnce {
			g.open(b, n)
		}
		done.Wait()
	}
	if len(lat) == 0 {
		b.Fatal("no chunks")
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50_ms")
	b.ReportMetric(q(0.99), "p99_ms")
	b.ReportMetric(q(1), "max_ms")
	b.ReportMetric(float64(len(lat))/float64(b.N), "lines/op")
}

// clockLines records the delay of each clock line in a chunk and calls
// ready at the command's "ready" line.
func clockLines(chunk string, at time.Time, ready func(), record func(time.Duration)) {
	for _, line := range strings.Fields(chunk) {
		if line == "ready" {
			ready()
			continue
		}
		if sec, err := strconv.ParseFloat(line, 64); err == nil {
			record(at.Sub(time.UnixMicro(int64(sec * 1e6))))
		}
	}
}

// streamLatencies posts one command with Accept: text/event-stream and
// records each printed line's delay until the client read it.
func streamLatencies(b *testing.B, s *execServer, sid, id string, ready func(), record func(time.Duration)) {
	defer ready() // a command that fails must not hold the round
	resp := s.request(b, b.Context(), "POST", "/v1/sessions/"+sid+"/messages", message(commandUse(id, latencyCommand)), "text/event-stream")
	if resp.StatusCode != http.StatusOK {
		b.Errorf("status %d", resp.StatusCode)
		resp.Body.Close()
		return
	}
	defer resp.Body.Close()
	// Read in place: a channel between reader and clock would add its own
	// hop to the figures.
	scanSSE(resp.Body, func(r received) bool {
		switch r.ev.Type {
		case api.EventMessageFinished:
			return false
		case api.EventToolAwaitingApproval:
			// Redirections always ask, even under allow_all.
			s.request(b, b.Context(), "POST", "/v1/sessions/"+sid+"/calls/"+id+"/decision",
				map[string]any{"decision": "approve"}, "").Body.Close()
		case api.EventToolOutput:
			clockLines(r.ev.Chunk, r.at, ready, record)
		}
		return true
	})
}
