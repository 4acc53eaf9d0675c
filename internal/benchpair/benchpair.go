// Package benchpair runs a construct kept only for speed side by side
// with its plain alternative, so a benchmark prints what the construct
// buys as a ratio (docs/benchmarks.md lists them). It is imported by
// benchmarks only.
package benchpair

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

// rounds is how many times fast and plain take turns: other load on a
// shared machine then falls on both alike.
const rounds = 10

// Run calls fast and plain about b.N times each (at least once a round,
// so `-benchtime 1x` runs both), interleaved in rounds, and reports
// fast_ns/op, plain_ns/op and ratio (fast's time over plain's).
func Run(b *testing.B, fast, plain func()) {
	b.Helper()
	per := b.N/rounds + 1
	var tf, tp time.Duration
	for range rounds {
		t := time.Now()
		for range per {
			fast()
		}
		tf += time.Since(t)
		t = time.Now()
		for range per {
			plain()
		}
		tp += time.Since(t)
	}
	n := float64(rounds * per)
	b.ReportMetric(float64(tf.Nanoseconds())/n, "fast_ns/op")
	b.ReportMetric(float64(tp.Nanoseconds())/n, "plain_ns/op")
	b.ReportMetric(float64(tf)/float64(tp), "ratio")
}

// Buffers runs Run with a pool of *[]byte against making a buffer of the
// same size each time, as the code would without the pool.
func Buffers(b *testing.B, pool interface {
	Get() any
	Put(any)
}) {
	b.Helper()
	bp := pool.Get().(*[]byte)
	size := len(*bp)
	pool.Put(bp)
	Run(b, func() {
		p := pool.Get().(*[]byte)
		(*p)[0] = 1
		pool.Put(p)
	}, func() {
		p := make([]byte, size) // size is not a constant: on the heap
		p[0] = 1
		runtime.KeepAlive(p)
	})
}

// Cold calls fast and plain b.N times each, taking turns, and times each
// call alone after writing evictBytes of memory: with more than a core's
// L2 (4 MiB here) or its L3 too (64 MiB), the call finds the lines it
// touches cold, as a server answering one caller at a time finds them
// (the client, the kernel and the runtime ran in between). It reports
// the medians, fast_cold_ns/op and plain_cold_ns/op, and their ratio: a
// construct that touches fewer lines shows here even when back-to-back
// calls, their lines warm, cannot tell the two apart.
func Cold(b *testing.B, evictBytes int, fast, plain func()) {
	b.Helper()
	evict := make([]byte, evictBytes)
	timed := func(call func()) time.Duration {
		for i := 0; i < len(evict); i += 64 {
			evict[i]++
		}
		t := time.Now()
		call()
		return time.Since(t)
	}
	tf, tp := make([]time.Duration, b.N), make([]time.Duration, b.N)
	for i := range b.N {
		tf[i], tp[i] = timed(fast), timed(plain)
	}
	f, p := medianNanos(tf), medianNanos(tp)
	b.ReportMetric(f, "fast_cold_ns/op")
	b.ReportMetric(p, "plain_cold_ns/op")
	b.ReportMetric(f/p, "ratio")
}

// medianNanos is the median of times, in nanoseconds; it sorts times.
func medianNanos(times []time.Duration) float64 {
	slices.Sort(times)
	return float64(times[len(times)/2].Nanoseconds())
}
