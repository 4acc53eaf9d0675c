package store

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkSyncedCommit writes a side-effecting call's two records on one
// connection, its start durable (on disk) and its end committed, the way
// the writer does it (synchronous=NORMAL throughout, the start's commit
// followed by an fsync of the write-ahead log) against the way it did
// (synchronous switched to FULL for the start and back to NORMAL for the
// end, each a pragma compiled again at every use). fast_ns/op and
// plain_ns/op are the pair's wall time, fast_cpu_µs/op and
// plain_cpu_µs/op the process's CPU time per pair.
//
//	go test -run '^$' -bench SyncedCommit -benchtime 2000x ./internal/store/
func BenchmarkSyncedCommit(b *testing.B) {
	st := openBench(b)
	ctx := context.Background()
	conn, err := st.db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	prep := func(q string) *sql.Stmt {
		s, err := conn.PrepareContext(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	upsert, begin, commit := prep(upsertCall), prep("BEGIN"), prep("COMMIT")
	full, normal := prep("PRAGMA synchronous = FULL"), prep("PRAGMA synchronous = NORMAL")
	run := func(s *sql.Stmt) {
		if _, err := s.ExecContext(ctx); err != nil {
			b.Fatal(err)
		}
	}
	put := func(c Call) {
		run(begin)
		if err := exec(ctx, conn, upsert, PutCall{Call: c}); err != nil {
			b.Fatal(err)
		}
		run(commit)
	}
	run(normal)
	put(benchRow(st, 0, "execute_command", false)) // the log exists
	wal, err := os.OpenFile(st.w.walPath, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer wal.Close()
	n := 0
	rows := func() (start, end Call) {
		n++
		end = benchRow(st, n, "execute_command", true)
		start = end
		start.State, start.Status, start.ResultLater, start.ResultBytes = "running", "", nil, 0
		return start, end
	}
	var cpu [2]time.Duration // the process's CPU time in each
	benchpair.Run(b, func() {
		start, end := rows()
		c0 := processCPU()
		put(start)
		if err := wal.Sync(); err != nil {
			b.Fatal(err)
		}
		put(end)
		cpu[0] += processCPU() - c0
	}, func() {
		start, end := rows()
		c0 := processCPU()
		run(full)
		put(start)
		run(normal)
		put(end)
		cpu[1] += processCPU() - c0
	})
	per := float64(b.N/10+1) * 10 // benchpair's calls of each
	b.ReportMetric(float64(cpu[0].Nanoseconds())/1e3/per, "fast_cpu_µs/op")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/1e3/per, "plain_cpu_µs/op")
}

// BenchmarkDirectCommit writes a side-effecting call's two records (its
// start Synced, its end Committed) through Apply, each committed on the
// caller's goroutine as the writer does when no commit is under way,
// against the same on a store whose writer hands every write to its own
// goroutine and back (as it did): fast_ns/op and plain_ns/op are the
// pair's mean wall time, fast_p50_µs, fast_p90_µs, plain_p50_µs and
// plain_p90_µs its percentiles (an fsync's outliers move the mean), fast_cpu_µs/op and plain_cpu_µs/op
// the process's CPU time per pair.
//
//	go test -run '^$' -bench DirectCommit -benchtime 2000x ./internal/store/
func BenchmarkDirectCommit(b *testing.B) {
	direct, handOff := openBench(b), openBench(b)
	handOff.w.mu.Lock()
	handOff.w.handOff = true
	handOff.w.mu.Unlock()
	n := 0
	var cpu [2]time.Duration
	var lat [2][]time.Duration
	pair := func(st *SQLite, i int) func() {
		return func() {
			n++
			c0, t0 := processCPU(), time.Now()
			recordPair(b, st, n)
			lat[i] = append(lat[i], time.Since(t0))
			cpu[i] += processCPU() - c0
		}
	}
	benchpair.Run(b, pair(direct, 0), pair(handOff, 1))
	for i, name := range []string{"fast", "plain"} {
		slices.Sort(lat[i])
		b.ReportMetric(float64(lat[i][len(lat[i])/2].Nanoseconds())/1e3, name+"_p50_µs")
		b.ReportMetric(float64(lat[i][len(lat[i])*9/10].Nanoseconds())/1e3, name+"_p90_µs")
		b.ReportMetric(float64(cpu[i].Nanoseconds())/1e3/float64(len(lat[i])), name+"_cpu_µs/op")
	}
}
