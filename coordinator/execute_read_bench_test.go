package coordinator

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect/cline"
	"github.com/toolgate/toolgate/internal/store"
)

// BenchmarkExecuteRead times the coordinator's whole path for a read as
// `toolgate serve` runs it by default (the SQLite store, Cline's
// dialect, no rule) under bench/peers' config (allow_all): Execute of read_file with a fresh tool_use id each
// call, into one session kept at its bounds (its call cache full, so
// each call evicts one). The handler returns a 1 KB numbered text
// without touching the disk: what is timed is the coordinator's own
// path. Calls are timed in turns of 256, the store's queue flushed
// after each, untimed; the median turn is reported per call, with the
// allocations per call. For a CPU profile of the stages:
//
//	go test -run '^$' -bench ExecuteRead -benchtime 100000x -cpuprofile /tmp/cpu.prof ./coordinator/
func BenchmarkExecuteRead(b *testing.B) {
	ws := oneKBWorkspace(b)
	text := numberedKB()
	readTool := tool.Registration{Name: "read_file", Factory: func(name string, env tool.Env) *tool.Tool {
		return NewTool(tool.Spec[fileIn]{
			Name: name, CountsReads: true, ConcurrencySafe: func(*fileIn) bool { return true },
			Run: func(_ context.Context, c *tool.Call, in *fileIn) (tool.Result, error) {
				return tool.TextResult(text), nil
			},
			Paths: func(in *fileIn) []string { return []string{in.Path} },
		})
	}}
	cfg := DefaultConfig()
	cfg.AllowAll = true // bench/peers runs toolgate so
	st := openBenchStore(b)
	c := New(Options{Config: cfg, Workspace: ws, Tools: []tool.Registration{readTool}, Store: st,
		Dialects: []tool.Dialect{cline.Dialect()}, Registerer: prometheus.NewRegistry()})
	b.Cleanup(c.Close)
	s, err := c.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		b.Fatal(err)
	}
	input := []byte(`{"path":"one_kb.txt"}`)
	n := 0
	call := func() {
		n++
		_, rec := c.Execute(context.Background(), s, "", api.ToolUse{Type: api.TypeToolUse, ID: "toolu_" + strconv.Itoa(n), Name: "read_file", Input: input})
		if rec.Status != api.StatusSucceeded {
			b.Fatalf("read_file: %+v", rec)
		}
	}
	for range cfg.MaxCallsPerSession + 10 { // the session at its bounds
		call()
	}
	_ = c.rec.apply(store.Committed)
	const perTurn = 256
	var turns []time.Duration
	var allocs uint64
	b.ResetTimer()
	for left := b.N; left > 0; left -= perTurn {
		a0, t0 := mallocs(), time.Now()
		for range perTurn {
			call()
		}
		turns = append(turns, time.Since(t0))
		allocs += mallocs() - a0
		// The store's writer catches up, untimed: a caller over HTTP
		// leaves it the time, and a full queue makes the call commit.
		b.StopTimer()
		_ = c.rec.apply(store.Committed)
		b.StartTimer()
	}
	b.ReportMetric(medianPerCall(turns, perTurn), "median_ns/call")
	b.ReportMetric(float64(allocs)/float64(len(turns)*perTurn), "allocs/call")
}
