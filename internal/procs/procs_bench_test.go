package procs

import (
	"testing"
	"time"
)

// BenchmarkCall is what the governor adds to every call: Call and Done
// with GOMAXPROCS left where it is (a light call alone), against the
// same with no governor running; and to every request, its connection's
// two states (conn=active-idle: ConnActive and ConnIdle of one
// connection). The speed it buys is measured through the server:
// bench/peers/run.sh with -baseline (docs/benchmarks.md).
func BenchmarkCall(b *testing.B) {
	b.Run("governed", func(b *testing.B) {
		g, _ := newTestGovernor(time.Hour)
		current.Store(g)
		defer current.Store(nil)
		for b.Loop() {
			Call(true).Done()
		}
	})
	b.Run("conn=active-idle", func(b *testing.B) {
		g, _ := newTestGovernor(time.Hour)
		current.Store(g)
		defer current.Store(nil)
		conn := new(int)
		for b.Loop() {
			ConnActive(conn)
			ConnIdle(conn)
		}
	})
	b.Run("none", func(b *testing.B) {
		for b.Loop() {
			Call(true).Done()
		}
	})
}
