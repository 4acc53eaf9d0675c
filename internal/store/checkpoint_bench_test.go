package store

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"
)

// BenchmarkCheckpointTail writes side-effecting calls' records back to
// back, each pair (its start Synced, its end Committed) committed on the
// caller's goroutine, with readsPerPair reads' records queued between
// pairs for the writer's own batches: on a store as it is (the writer's
// goroutine checkpoints, checkpoint.go) and, in alternating rounds, on
// one that checkpoints as it did (SQLite's automatic checkpoint every
// 1,000 pages, inside whichever commit crosses it, often a waited one).
// It reports each one's pair's wall-clock percentiles (fast_p50_µs,
// fast_p99_µs, fast_p999_µs, fast_max_µs, plain_ the same: a checkpoint
// inside a waited commit shows in the tail), the process's CPU per pair
// (the checkpoints included) and the log's file at the end (wal_MB).
//
//	go test -run '^$' -bench CheckpointTail -benchtime 5000x ./internal/store/
func BenchmarkCheckpointTail(b *testing.B) {
	const readsPerPair, rounds = 4, 10
	fast, plain := openBench(b), openBench(b)
	if _, err := plain.w.conn.ExecContext(context.Background(), "PRAGMA wal_autocheckpoint = 1000"); err != nil {
		b.Fatal(err)
	}
	plain.w.checkpoint = func(context.Context, string) (checkpointResult, error) { return checkpointResult{}, nil }
	stores := []*SQLite{fast, plain}
	lat := make([][]time.Duration, 2)
	cpu := make([]time.Duration, 2)
	n := 0
	per := b.N/rounds + 1
	for range rounds {
		for i, st := range stores {
			c0 := processCPU()
			for range per {
				for range readsPerPair {
					n++
					if err := st.Apply(Queued, PutCall{Call: benchRow(st, n, "read_file", false)}); err != nil {
						b.Fatal(err)
					}
				}
				n++
				t0 := time.Now()
				recordPair(b, st, n)
				lat[i] = append(lat[i], time.Since(t0))
			}
			cpu[i] += processCPU() - c0
		}
	}
	for i, name := range []string{"fast", "plain"} {
		l := lat[i]
		slices.Sort(l)
		at := func(q float64) float64 { return float64(l[int(q*float64(len(l)-1))].Nanoseconds()) / 1e3 }
		b.ReportMetric(at(0.5), name+"_p50_µs")
		b.ReportMetric(at(0.99), name+"_p99_µs")
		b.ReportMetric(at(0.999), name+"_p999_µs")
		b.ReportMetric(at(1), name+"_max_µs")
		b.ReportMetric(float64(cpu[i].Nanoseconds())/1e3/float64(len(l)), name+"_cpu_µs/pair")
		if info, err := os.Stat(stores[i].w.walPath); err == nil {
			b.ReportMetric(float64(info.Size())/(1<<20), name+"_wal_MB")
		}
	}
	b.ReportMetric(0, "ns/op")
}
