package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkCheckpointTail writes side-effecting calls' records back to
// back, each pair (its start Synced, its end Committed) committed on the
// caller's goroutine, with four reads' records queued between pairs for
// the writer's own batches: on a store as it is (the writer's goroutine
// checkpoints, checkpoint.go) and, in alternating rounds, on one that
// checkpoints as it did (SQLite's automatic checkpoint every 1,000
// pages, inside whichever commit crosses it, most often a waited one).
// For each: the pair's wall-clock percentiles (fast_p50_µs, fast_p99_µs,
// fast_p999_µs, fast_max_µs, plain_ the same), the process's CPU per
// pair (the checkpoints included), the log's file at the end (wal_MB);
// and the pairs a checkpoint touched: fast_beside_p50_µs and _p90 for
// the pairs that ran while one ran beside them (fast_beside_n of them),
// plain_inside_p50_µs and _p90 for the pairs whose commit checkpointed
// (seen as the database file growing; plain_inside_n).
//
//	go test -run '^$' -bench CheckpointTail -benchtime 5000x ./internal/store/
func BenchmarkCheckpointTail(b *testing.B) {
	const rounds = 10
	fast, plain := openBench(b), openBench(b)
	if _, err := plain.w.conn.ExecContext(context.Background(), "PRAGMA wal_autocheckpoint = 1000"); err != nil {
		b.Fatal(err)
	}
	plain.w.checkpoint = func(context.Context, string) (checkpointResult, error) { return checkpointResult{}, nil }
	spans := watchCheckpoints(fast)
	var lat, touched [2][]time.Duration
	var cpu [2]time.Duration
	n := 0
	for range rounds {
		for i, st := range []*SQLite{fast, plain} {
			c0 := processCPU()
			for range b.N/rounds + 1 {
				for range 4 {
					n++
					if err := st.Apply(Queued, PutCall{Call: benchRow(st, n, "read_file", false)}); err != nil {
						b.Fatal(err)
					}
				}
				n++
				size := dbSize(b, st)
				t0 := time.Now()
				recordPair(b, st, n)
				d := time.Since(t0)
				lat[i] = append(lat[i], d)
				if i == 0 && spans.overlap(t0, t0.Add(d)) || i == 1 && dbSize(b, st) != size {
					touched[i] = append(touched[i], d)
				}
			}
			cpu[i] += processCPU() - c0
		}
	}
	for i, name := range []string{"fast", "plain"} {
		b.ReportMetric(quantileµs(lat[i], 0.5), name+"_p50_µs")
		b.ReportMetric(quantileµs(lat[i], 0.99), name+"_p99_µs")
		b.ReportMetric(quantileµs(lat[i], 0.999), name+"_p999_µs")
		b.ReportMetric(quantileµs(lat[i], 1), name+"_max_µs")
		b.ReportMetric(float64(cpu[i].Nanoseconds())/1e3/float64(len(lat[i])), name+"_cpu_µs/pair")
		if info, err := os.Stat([]*SQLite{fast, plain}[i].w.walPath); err == nil {
			b.ReportMetric(float64(info.Size())/(1<<20), name+"_wal_MB")
		}
		kind := []string{"_beside", "_inside"}[i]
		b.ReportMetric(float64(len(touched[i])), name+kind+"_n")
		b.ReportMetric(quantileµs(touched[i], 0.5), name+kind+"_p50_µs")
		b.ReportMetric(quantileµs(touched[i], 0.9), name+kind+"_p90_µs")
	}
	b.ReportMetric(0, "ns/op")
}

// checkpointSpans are the times the writer's checkpoints ran.
type checkpointSpans struct {
	mu    sync.Mutex
	spans [][2]time.Time
}

func watchCheckpoints(st *SQLite) *checkpointSpans {
	c := &checkpointSpans{}
	run := st.w.checkpoint
	st.w.checkpoint = func(ctx context.Context, mode string) (checkpointResult, error) {
		t0 := time.Now()
		r, err := run(ctx, mode)
		c.mu.Lock()
		c.spans = append(c.spans, [2]time.Time{t0, time.Now()})
		c.mu.Unlock()
		return r, err
	}
	return c
}

// overlap reports whether a checkpoint ran between from and to (the
// latest are the ones that may).
func (c *checkpointSpans) overlap(from, to time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.spans) - 1; i >= 0 && i >= len(c.spans)-3; i-- {
		if s := c.spans[i]; s[0].Before(to) && s[1].After(from) {
			return true
		}
	}
	return false
}

// dbSize is the size of st's database file: a checkpoint that copies new
// pages makes it grow.
func dbSize(b *testing.B, st *SQLite) int64 {
	info, err := os.Stat(filepath.Join(filepath.Dir(st.w.walPath), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	return info.Size()
}

func quantileµs(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return float64(d[int(q*float64(len(d)-1))].Nanoseconds()) / 1e3
}
