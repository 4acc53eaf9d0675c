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

// BenchmarkCallRecord writes the record of a 1 KB read (its input, its
// tool_result of Cline's numbered lines, encoded when written, as the
// coordinator hands it over) the way one sequential caller does: one
// call every gap (at least: a sleep, which costs no CPU, may wake later),
// each record queued without waiting. It runs the SQLite
// store and the memory store side by side and reports the process's CPU
// time per record of each (the SQLite writer's commits included: the
// run ends with a flush) and their difference, what the SQLite store
// costs a read. A second part times a side-effecting call's durable
// record (Apply(true)), one at a time: its wall-clock median.
//
//	go test -run '^$' -bench CallRecord -benchtime 2000x ./internal/store/
func BenchmarkCallRecord(b *testing.B) {
	const gap = 300 * time.Microsecond // a read's round trip through toolgate
	var lines strings.Builder
	for i := range 64 {
		fmt.Fprintf(&lines, "%d | 0123456789abcde\n", i+1)
	}
	result := struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		Content   []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}{Type: "tool_result", Content: []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{{"text", lines.String()}}}
	input := json.RawMessage(`{"path":"one_kb.txt"}`)
	sqlite, err := Open(b.Context(), filepath.Join(b.TempDir(), "state.db"), Options{OnError: func(err error) { b.Error(err) }})
	if err != nil {
		b.Fatal(err)
	}
	defer sqlite.Close()
	stores := []struct {
		name string
		st   Store
	}{{"sqlite", sqlite}, {"memory", NewMemory(0)}}
	row := func(st Store, n int, tool string) Call {
		return Call{Seq: st.NextSeq(), SessionID: "ses_bench", ToolUseID: fmt.Sprintf("toolu_%d", n), Tool: tool,
			Input: input, InputSHA256: strings.Repeat("ab", 32), InputBytes: len(input), State: "done", Status: "succeeded",
			Decision: "allow", DecidedBy: "default: read", StartedAt: time.Now(), DurationMS: 0.2,
			ResultLater: func() (json.RawMessage, int) {
				out, _ := json.Marshal(result)
				return out, len(out)
			}, LaterBytes: lines.Len()}
	}
	b.Run("read", func(b *testing.B) {
		cpu := make([]time.Duration, len(stores))
		n := 0
		for b.Loop() {
			for i, s := range stores {
				c0 := processCPU()
				for range 50 {
					n++
					if err := s.st.Apply(false, PutCall{Call: row(s.st, n, "read_file")}); err != nil {
						b.Fatal(err)
					}
					time.Sleep(gap)
				}
				if err := s.st.Apply(true); err != nil { // the writer's commits are counted
					b.Fatal(err)
				}
				cpu[i] += processCPU() - c0
			}
		}
		per := func(i int) float64 { return float64(cpu[i].Nanoseconds()) / 1e3 / float64(50*b.N) }
		b.ReportMetric(per(0), "sqlite_cpu_µs/record")
		b.ReportMetric(per(1), "memory_cpu_µs/record")
		b.ReportMetric(per(0)-per(1), "store_cpu_µs/record")
	})
	b.Run("durable", func(b *testing.B) {
		var lat []time.Duration
		n := 0
		for b.Loop() {
			n++
			t0 := time.Now()
			if err := sqlite.Apply(true, PutCall{Call: row(sqlite, n, "write_to_file")}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "durable_p50_µs")
		b.ReportMetric(float64(lat[len(lat)*9/10].Nanoseconds())/1e3, "durable_p90_µs")
	})
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
