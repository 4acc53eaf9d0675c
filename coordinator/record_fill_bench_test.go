package coordinator

import (
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/eventlog"
	"github.com/toolgate/toolgate/internal/store"
)

// BenchmarkReadRecordFill times what recording a 1 KB read's end costs
// the call's path with the SQLite store (callFinished's row and queuing):
// its input's hash and its result's size left to the store's writer
// (store.Call.Fill; fast) against worked out on the path (rowBefore,
// plain). Both write the same row. In turns of 256 records, each
// followed by a flush (not timed, as the writer's commits are not on the
// path); cpu_ns/op is the process's CPU per record, the writer's commits
// included: what the Fill moves off the path it still costs there.
//
//	go test -run '^$' -bench ReadRecordFill -count 5 ./coordinator/
func BenchmarkReadRecordFill(b *testing.B) {
	st := openBenchStore(b)
	r := &recorder{st: st, logger: slog.Default()}
	cfg := DefaultConfig()
	s := newSession("ses_bench", api.ModeAct, api.Permissions{}, &cfg)
	s.rec = r
	res := api.NewToolResult("toolu_bench", numberedKB(), false)
	started := time.Now().UTC()
	e := &callEntry{record: api.CallRecord{ToolUseID: "toolu_bench", Name: "read_file", State: api.StateDone,
		Status: api.StatusSucceeded, StartedAt: &started, DurationMS: 0.2},
		audit: audit{session: s.ID, input: json.RawMessage(`{"path":"one_kb.txt"}`), claimed: started, decision: "allow", decidedBy: "default: read"}}
	record := func(row func(*Session, *callEntry, *api.ToolResult, bool) store.Call) {
		e.audit.seq = st.NextSeq()
		_ = r.apply(store.Queued, store.PutCall{Call: row(s, e, &res, false)})
	}
	fast := func() { record(r.row) }
	plain := func() { record(r.rowBefore) }
	// A turn stays below the writer's batch, so that its records queue
	// without waiting for a commit. The two take turns; each reports
	// its median turn, which a turn that lost its core to another
	// process does not move.
	const perTurn = 256
	var turns [2][]time.Duration
	var cpu [2]time.Duration
	for left := b.N; left > 0; left -= perTurn {
		for i, f := range []func(){fast, plain} {
			c0, t0 := processCPU(), time.Now()
			for range perTurn {
				f()
			}
			turns[i] = append(turns[i], time.Since(t0))
			_ = r.apply(store.Committed) // waits for what is queued
			cpu[i] += processCPU() - c0
		}
	}
	n := float64(len(turns[0]) * perTurn)
	fastNS, plainNS := medianPerCall(turns[0], perTurn), medianPerCall(turns[1], perTurn)
	b.ReportMetric(fastNS, "fast_ns/op")
	b.ReportMetric(plainNS, "plain_ns/op")
	b.ReportMetric(fastNS/plainNS, "ratio")
	b.ReportMetric(float64(cpu[0].Nanoseconds())/n, "fast_cpu_ns/op")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/n, "plain_cpu_ns/op")
}

// rowBefore is recorder.row as it was before store.Call.Fill: a read's
// input hash and result size worked out on the call's path. The baseline
// of BenchmarkReadRecordFill.
func (r *recorder) rowBefore(s *Session, e *callEntry, res *api.ToolResult, wholeInput bool) store.Call {
	s.mu.Lock()
	rec := e.record
	s.mu.Unlock()
	a := &e.audit
	c := callRow(s, e, &rec)
	c.Input, c.InputSHA256, c.InputBytes = boundInput(a.input, wholeInput)
	switch {
	case res == nil:
	case !a.effects && !a.waited:
		c.ResultBytes = resultJSONSize(res)
	default:
		if keptWhole(*res) {
			kept := *res
			kept.Content = slices.Clone(res.Content)
			c.ResultLater = func() (json.RawMessage, int) { return boundResult(kept) }
			c.LaterBytes = eventlog.ResultSize(&kept)
		} else {
			c.Result, c.ResultBytes = boundResult(*res)
		}
	}
	return c
}
