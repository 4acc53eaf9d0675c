// Package benchpair runs a construct kept only for speed side by side
// with its plain alternative, so a benchmark prints what the construct
// buys as a ratio (docs/benchmarks.md lists them). It is imported by
// benchmarks only.
package benchpair

import (
	"runtime"
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
