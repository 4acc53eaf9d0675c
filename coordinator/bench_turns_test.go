package coordinator

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/store"
)

// The pieces the record benchmarks share: a 1 KB file's read as
// read_file numbers it, the SQLite store as toolgate serve opens it, and
// a side's median turn per call.

// numberedKB is read_file's text of a 1 KB file of 64 lines.
func numberedKB() string {
	var lines strings.Builder
	for i := range 64 {
		fmt.Fprintf(&lines, "%d | 0123456789abcde\n", i+1)
	}
	return lines.String()
}

// openBenchStore opens a SQLite store in a scratch directory, closed
// when the benchmark ends.
func openBenchStore(b *testing.B) *store.SQLite {
	st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "state.db"), store.Options{OnError: func(err error) { b.Error(err) }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// medianPerCall is the median of turns of perTurn calls each, per call,
// in nanoseconds: a turn that lost its core to another process does not
// move it.
func medianPerCall(turns []time.Duration, perTurn int) float64 {
	slices.Sort(turns)
	return float64(turns[len(turns)/2].Nanoseconds()) / float64(perTurn)
}

// mallocs is the number of heap allocations the process has made.
func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
