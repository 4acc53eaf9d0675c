package coordinator

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/eventlog"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/store"
)

// BenchmarkRecordStage times the pipeline's last stage (record: the
// tool_result, the session's finish, the store row queued, tool.finished,
// the metrics) for a 1 KB read's result (the numbered text and Cline's
// note on a repeated read, as BenchmarkReadPipeline's reads end) with
// the SQLite store, as
// `toolgate serve` runs it by default, and side by side the stage as it
// was (recordBefore): the tool_result, its block and the final record
// in three allocations, the record taken under the session's lock twice,
// the row's Fill in three allocations. Calls are made ready in turns of
// 256 (claimed, started, their outcome set; not timed), then recorded;
// the store's queue is flushed after each turn, untimed. Each side
// reports its median turn per call and its allocations per call.
//
//	go test -run '^$' -bench RecordStage -count 5 ./coordinator/
func BenchmarkRecordStage(b *testing.B) {
	c := New(Options{Tools: policyTools(&ran{}), Store: openBenchStore(b), Config: DefaultConfig()})
	defer c.Close()
	s, err := c.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		b.Fatal(err)
	}
	t, _ := c.registry.lookup("read_file")
	text, note := numberedKB(), "[DUPLICATE READ] You have already read 'one_kb.txt' 3 times in this conversation. "+
		"The content has not changed since your last read. Please use the information you already have and proceed with your task."
	input := []byte(`{"path":"one_kb.txt"}`)
	n := 0
	ready := func() *callState {
		n++
		use := api.ToolUse{Type: api.TypeToolUse, ID: "toolu_" + strconv.Itoa(n), Name: "read_file", Input: input}
		e, _ := s.claim(use, "", tool.InterruptCancel)
		cs := &callState{use: use, tool: t}
		cs.begin(s, e, c.logger)
		if _, ok := s.start(e); !ok {
			b.Fatal("not started")
		}
		cs.end = &outcome{status: api.StatusSucceeded, result: tool.Result{Content: []api.Content{api.TextContent(text), api.TextContent(note)}}}
		return cs
	}
	fast := func(cs *callState) (api.ToolResult, api.CallRecord) { return c.record(cs, 200*time.Microsecond) }
	plain := func(cs *callState) (api.ToolResult, api.CallRecord) { return c.recordBefore(cs, 200*time.Microsecond) }
	const perTurn = 256
	var turns [2][]time.Duration
	var allocs [2]uint64
	batch := make([]*callState, perTurn)
	for left := b.N; left > 0; left -= perTurn {
		for i, record := range []func(*callState) (api.ToolResult, api.CallRecord){fast, plain} {
			for j := range batch {
				batch[j] = ready()
			}
			a0, t0 := mallocs(), time.Now()
			for _, cs := range batch {
				if _, rec := record(cs); rec.State != api.StateDone {
					b.Fatalf("record: %+v", rec)
				}
			}
			turns[i] = append(turns[i], time.Since(t0))
			allocs[i] += mallocs() - a0
			_ = c.rec.apply(store.Committed) // waits for what is queued
		}
	}
	calls := float64(len(turns[0]) * perTurn)
	fastNS, plainNS := medianPerCall(turns[0], perTurn), medianPerCall(turns[1], perTurn)
	b.ReportMetric(fastNS, "fast_ns/op")
	b.ReportMetric(plainNS, "plain_ns/op")
	b.ReportMetric(fastNS/plainNS, "ratio")
	b.ReportMetric(float64(allocs[0])/calls, "fast_allocs/op")
	b.ReportMetric(float64(allocs[1])/calls, "plain_allocs/op")
}

// recordBefore is Coordinator.record as it was before finishedCall: the
// tool_result's blocks, the record and the result tool.finished points
// to each an allocation of their own; the finish as it was
// (finishBefore). The baseline of BenchmarkRecordStage.
func (c *Coordinator) recordBefore(cs *callState, dur time.Duration) (api.ToolResult, api.CallRecord) {
	s, use, out := cs.s, cs.use, *cs.end
	res := toToolResult(use.ID, out.result, nil)
	var detail *api.ErrorDetail
	if out.status != api.StatusSucceeded {
		detail = &api.ErrorDetail{Code: out.code, Message: firstText(out.result)}
	}
	rec := s.finishBefore(cs.e, out.status, dur, detail, res)
	s.Events.Append(api.Event{Type: api.EventToolFinished, MessageID: rec.MessageID, ToolUseID: use.ID, Call: &rec, Result: &res})
	metricTool := ""
	switch {
	case cs.dialect != nil:
		metricTool = cs.dialect.tool.Name
	case cs.tool != nil:
		metricTool = c.metricLabel(cs, cs.tool.Name)
	}
	c.metrics.observe(metricDialect(s), metricTool, out.status, dur-cs.waited, cs.span)
	c.tracer.endCall(cs, out)
	if cs.logger.Enabled(context.Background(), slog.LevelDebug) {
		cs.logger.Debug("tool call", "status", out.status, "duration_ms", rec.DurationMS)
	}
	return res, rec
}

// finishBefore is Session.finish as it was: the result passed by value,
// and the store's row (callFinishedBefore) taking the record under the
// session's lock again.
func (s *Session) finishBefore(e *callEntry, status api.CallStatus, dur time.Duration, detail *api.ErrorDetail, res api.ToolResult) api.CallRecord {
	s.mu.Lock()
	e.record.State = api.StateDone
	e.record.Status = status
	e.record.DurationMS = float64(dur.Microseconds()) / 1000
	e.record.Error = detail
	e.result = res
	rec, cancel := e.record, e.cancel
	e.cancel = nil
	if s.calls[e.record.ToolUseID] == e {
		e.size = eventlog.ResultSize(&res)
		s.callBytes += e.size
		s.evictLocked(e)
	}
	s.mu.Unlock()
	s.rec.callFinishedBefore(s, e, &res)
	s.Files.EndRead(e.readTurn)
	cancel(nil)
	s.mu.Lock()
	done := e.wakeLocked()
	s.mu.Unlock()
	if done != nil {
		close(done)
	}
	return rec
}

// callFinishedBefore is recorder.callFinished as it was: the row made by
// rowFillBefore, which takes the record under the session's lock.
func (r *recorder) callFinishedBefore(s *Session, e *callEntry, res *api.ToolResult) {
	if r == nil || r.stopping.Load() && e.record.Status == api.StatusCancelled {
		return
	}
	d := store.Queued
	if e.audit.effects || e.audit.waited {
		d = store.Committed
	}
	_ = r.apply(d, store.PutCall{Call: r.rowFillBefore(s, e, res, false)})
}

// rowFillBefore is recorder.row as it was before resultFill: the record
// copied under the session's lock, and a read's Fill in three
// allocations (the func, the result it moves to the heap, the blocks'
// copy).
func (r *recorder) rowFillBefore(s *Session, e *callEntry, res *api.ToolResult, wholeInput bool) store.Call {
	s.mu.Lock()
	rec := e.record
	s.mu.Unlock()
	a := &e.audit
	c := callRow(s, e, &rec)
	c.Input, c.InputBytes = keptInput(a.input, wholeInput), len(a.input)
	if res != nil && !a.effects && !a.waited {
		in, kept := a.input, *res
		kept.Content = slices.Clone(res.Content)
		c.Fill = func(c *store.Call) {
			c.InputSHA256 = inputSHA256(in)
			c.ResultBytes = resultJSONSize(&kept)
		}
		return c
	}
	return r.row(s, e, res, wholeInput)
}
