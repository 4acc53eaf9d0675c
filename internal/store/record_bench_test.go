package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCallRecord writes the record of a 1 KB read the way one
// sequential caller does: one call every gap (at least: a sleep, which
// costs no CPU, may wake later), each record queued without waiting.
// "read" runs, in turns of perTurn records, the record as the coordinator
// hands it over now (its input and its result's size, not the result:
// a read changes nothing), the record with its result kept (the tool_result
// of Cline's numbered lines, encoded when written, as before) on a SQLite
// store of its own, and the memory store; it reports the process's CPU
// time per record of each (the SQLite writer's commits included: a turn
// ends with a flush, a commit without an fsync, as reads alone never ask
// for one) and the SQLite store's part of it, the difference to the
// memory store's. "effects" times a side-effecting call's two records
// (see effects).
//
//	go test -run '^$' -bench CallRecord/read -benchtime 10x ./internal/store/
//	go test -run '^$' -bench CallRecord/effects -benchtime 400x ./internal/store/
func BenchmarkCallRecord(b *testing.B) {
	const gap = 300 * time.Microsecond // a read's round trip through toolgate
	open := func() *SQLite { return openBench(b) }
	row := benchRow
	b.Run("read", func(b *testing.B) {
		stores := []struct {
			st   Store
			kept bool
		}{{open(), false}, {open(), true}, {NewMemory(0), false}}
		// perTurn records take longer than commitDelay, so that most
		// commits are the writer's own and a turn's closing flush adds
		// one in several.
		const perTurn = 400
		cpu := make([]time.Duration, len(stores))
		n := 0
		for b.Loop() {
			for i, s := range stores {
				c0 := processCPU()
				for range perTurn {
					n++
					if err := s.st.Apply(Queued, PutCall{Call: row(s.st, n, "read_file", s.kept)}); err != nil {
						b.Fatal(err)
					}
					time.Sleep(gap)
				}
				if sq, ok := s.st.(*SQLite); ok { // the writer's commits are counted
					if err := sq.flush(); err != nil {
						b.Fatal(err)
					}
				}
				cpu[i] += processCPU() - c0
			}
		}
		per := func(i int) float64 { return float64(cpu[i].Nanoseconds()) / 1e3 / float64(perTurn*b.N) }
		b.ReportMetric(per(0), "sqlite_cpu_µs/record")
		b.ReportMetric(per(1), "kept_cpu_µs/record")
		b.ReportMetric(per(2), "memory_cpu_µs/record")
		b.ReportMetric(per(0)-per(2), "store_cpu_µs/record")
		b.ReportMetric(per(1)-per(2), "kept_store_cpu_µs/record")
	})
	b.Run("effects", func(b *testing.B) { effects(b, open(), row) })
}

// effects times a side-effecting call's two records, its start (Synced:
// an fsync'd commit) and its end with its result (Committed: a commit
// without an fsync), in turns with the same two records both Synced, as
// they were before: the wall-clock median and 90th percentile of the
// pair, and the process's CPU per pair, the writer's included.
func effects(b *testing.B, st *SQLite, row func(Store, int, string, bool) Call) {
	type timing struct {
		lat []time.Duration
		cpu time.Duration
	}
	var now, both timing
	record := func(t *timing, end Durability, n int) {
		c := row(st, n, "execute_command", true)
		start := c
		start.State, start.Status, start.ResultLater, start.ResultBytes = "running", "", nil, 0
		c0, t0 := processCPU(), time.Now()
		if err := st.Apply(Synced, PutCall{Call: start}); err != nil {
			b.Fatal(err)
		}
		if err := st.Apply(end, PutCall{Call: c}); err != nil {
			b.Fatal(err)
		}
		t.lat = append(t.lat, time.Since(t0))
		t.cpu += processCPU() - c0
	}
	n := 0
	for b.Loop() {
		n += 2
		record(&now, Committed, n)
		record(&both, Synced, n+1)
	}
	for _, t := range []struct {
		name string
		t    timing
	}{{"", now}, {"both_synced_", both}} {
		slices.Sort(t.t.lat)
		b.ReportMetric(float64(t.t.lat[len(t.t.lat)/2].Nanoseconds())/1e3, t.name+"p50_µs")
		b.ReportMetric(float64(t.t.lat[len(t.t.lat)*9/10].Nanoseconds())/1e3, t.name+"p90_µs")
		b.ReportMetric(float64(t.t.cpu.Nanoseconds())/1e3/float64(len(t.t.lat)), t.name+"cpu_µs")
	}
	b.ReportMetric(float64(now.lat[len(now.lat)/2])/float64(both.lat[len(both.lat)/2]), "p50_ratio")
}

// benchLines is a 1 KB file as Cline's read_file numbers it.
var benchLines = func() string {
	var lines strings.Builder
	for i := range 64 {
		fmt.Fprintf(&lines, "%d | 0123456789abcde\n", i+1)
	}
	return lines.String()
}()

// openBench opens a SQLite store in a temporary directory.
func openBench(b *testing.B) *SQLite {
	st, err := Open(b.Context(), filepath.Join(b.TempDir(), "state.db"), Options{OnError: func(err error) { b.Error(err) }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// benchRow is the n-th record of a 1 KB read, its result kept or only
// its size.
func benchRow(st Store, n int, tool string, kept bool) Call {
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type toolResult struct {
		Type      string    `json:"type"`
		ToolUseID string    `json:"tool_use_id"`
		Content   []content `json:"content"`
		IsError   bool      `json:"is_error"`
	}
	input := json.RawMessage(`{"path":"one_kb.txt"}`)
	id := fmt.Sprintf("toolu_%d", n)
	c := Call{Seq: st.NextSeq(), SessionID: "ses_bench", ToolUseID: id, Tool: tool,
		Input: input, InputSHA256: strings.Repeat("ab", 32), InputBytes: len(input), State: "done", Status: "succeeded",
		Decision: "allow", DecidedBy: "default: read", StartedAt: time.Now(), DurationMS: 0.2, ResultBytes: 1423}
	if kept {
		c.ResultLater = func() (json.RawMessage, int) {
			out, _ := json.Marshal(toolResult{Type: "tool_result", ToolUseID: id, Content: []content{{"text", benchLines}}})
			return out, len(out)
		}
		c.LaterBytes = len(benchLines)
	}
	return c
}

// recordPair writes a side-effecting call's two records as the
// coordinator does: its start Synced before it runs, its end with its
// result Committed before its answer.
func recordPair(b *testing.B, st *SQLite, n int) {
	c := benchRow(st, n, "execute_command", true)
	start := c
	start.State, start.Status, start.ResultLater, start.ResultBytes = "running", "", nil, 0
	if err := st.Apply(Synced, PutCall{Call: start}); err != nil {
		b.Fatal(err)
	}
	if err := st.Apply(Committed, PutCall{Call: c}); err != nil {
		b.Fatal(err)
	}
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
