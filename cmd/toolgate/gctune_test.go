package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testwait"
)

// gcSettings reads the collector's percent and soft memory limit without
// changing them.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// TestTuneGCSetsAndRestores: the configured percent and limit are in
// force while serving and the previous ones after; an operator's GOGC or
// GOMEMLIMIT leaves the collector alone.
func TestTuneGCSetsAndRestores(t *testing.T) {
	p0, l0 := gcSettings()
	restore := tuneGC(300, 200, func(string) string { return "" })
	p, l := gcSettings()
	restore()
	if p != 300 || l != 200<<20 {
		t.Errorf("while serving: percent %d, limit %d; want 300, %d", p, l, 200<<20)
	}
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Errorf("after: percent %d, limit %d; want the previous %d, %d", p, l, p0, l0)
	}
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		restore := tuneGC(300, 200, func(k string) string {
			if k == env {
				return "150"
			}
			return ""
		})
		p, l := gcSettings()
		restore()
		if p != p0 || l != l0 {
			t.Errorf("with %s set: percent %d, limit %d; want them untouched (%d, %d)", env, p, l, p0, l0)
		}
	}
	restore = tuneGC(0, 0, func(string) string { return "" })
	p, l = gcSettings()
	restore()
	if p != defaultGCPercent || l != defaultGCMemoryLimitMB<<20 {
		t.Errorf("unset: percent %d, limit %d; want the defaults %d, %d", p, l, defaultGCPercent, defaultGCMemoryLimitMB<<20)
	}
}

// TestTuneGCRaisesLimitOverLiveHeap: a live heap larger than the soft
// limit leaves room raises the limit after a collection to twice the live
// heap, so the collector does not run over and over, as it would under a
// fixed limit.
func TestTuneGCRaisesLimitOverLiveHeap(t *testing.T) {
	restore := tuneGC(400, 1, func(string) string { return "" }) // a 1 MiB limit
	defer restore()
	live := make([][]byte, 32)
	for i := range live {
		live[i] = make([]byte, 1<<20) // 32 MiB kept
	}
	deadline := time.Now().Add(testwait.Limit)
	for {
		runtime.GC()
		if _, l := gcSettings(); l >= 64<<20 {
			break
		}
		if time.Now().After(deadline) {
			_, l := gcSettings()
			t.Fatalf("limit %d MiB after collections with 32 MiB live, want at least 64", l>>20)
		}
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine after the collection
	}
	runtime.KeepAlive(live)
}

// TestGCLimit: the limit is the configured one until twice the live heap
// and the runtime's memory besides its heap need more; free heap spans do
// not count as needed.
func TestGCLimit(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		base              int64
		live, total, heap uint64
		want              int64
	}{
		{64 * mib, 10 * mib, 40 * mib, 30 * mib, 64 * mib},
		{64 * mib, 40 * mib, 100 * mib, 90 * mib, 90 * mib},
		{64 * mib, 40 * mib, 300 * mib, 290 * mib, 90 * mib}, // 200 MiB of free spans: still 2*40+10
		{64 * mib, 0, 0, 0, 64 * mib},
	}
	for _, c := range cases {
		if got := gcLimit(c.base, c.live, c.total, c.heap); got != c.want {
			t.Errorf("gcLimit(%d, %d, %d, %d) = %d MiB, want %d", c.base>>20, c.live>>20, c.total>>20, c.heap>>20, got>>20, c.want>>20)
		}
	}
}
