package main

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// gcPercent is the GOGC the runtime runs with now.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// awaitGCPercent collects until ok(GOGC) holds, for up to 30 s: the
// floor is set by a finalizer that runs after a collection.
func awaitGCPercent(t *testing.T, what string, ok func(int) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok(gcPercent()) {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC is %d, not %s", gcPercent(), what)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// TestHeapFloorFollowsTheLiveHeap: while serve keeps the floor, a small
// live heap runs under a GOGC above 100 (its heap goal is the floor, not
// twice the live heap); a live heap of half the floor or more runs under
// GOGC=100 again, and once serve ends GOGC is what it was.
func TestHeapFloorFollowsTheLiveHeap(t *testing.T) {
	before := gcPercent()
	stop := keepHeapFloor(func(string) string { return "" })
	defer stop()
	awaitGCPercent(t, "above 100 for a small heap", func(p int) bool { return p > 100 })

	big := make([][]byte, 0, 64)
	for range heapFloor / 2 / (1 << 20) {
		big = append(big, make([]byte, 1<<20))
	}
	awaitGCPercent(t, "100 for a live heap of half the floor", func(p int) bool { return p == 100 })
	runtime.KeepAlive(big)
	big = nil
	awaitGCPercent(t, "above 100 once the heap is small again", func(p int) bool { return p > 100 })

	stop()
	if p := gcPercent(); p != before {
		t.Errorf("GOGC is %d after serve ended, was %d", p, before)
	}
}

// TestHeapFloorLeavesAChosenGOGC: with GOGC or GOMEMLIMIT in the
// environment, the runtime does as they say.
func TestHeapFloorLeavesAChosenGOGC(t *testing.T) {
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		before := gcPercent()
		stop := keepHeapFloor(func(k string) string {
			if k == name {
				return "50"
			}
			return ""
		})
		for range 3 {
			runtime.GC()
		}
		// A sentinel's finalizer would have run by the next collection.
		runtime.GC()
		if p := gcPercent(); p != before {
			t.Errorf("%s set: GOGC changed from %d to %d", name, before, p)
		}
		stop()
	}
}

// TestGCPercentFor: the heap goal GOGC gives, live+(live+roots)*GOGC/100,
// is the floor for a small heap, but never under GOGC=100's nor below
// what the runtime's minimum goal (4 MB*GOGC/100) makes the floor.
func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, roots uint64
		want        int
	}{
		{0, 0, heapFloor * 100 / (4 * mb)},
		{2 * mb, 0, heapFloor * 100 / (4 * mb)},
		{12 * mb, 0, (heapFloor - 12*mb) * 100 / (12 * mb)},
		{12 * mb, 4 * mb, (heapFloor - 12*mb) * 100 / (16 * mb)},
		{heapFloor/2 - mb, 4 * mb, 100},
		{heapFloor / 2, 0, 100},
		{10 * heapFloor, 0, 100},
	} {
		if got := gcPercentFor(c.live, c.roots); got != c.want {
			t.Errorf("gcPercentFor(%d MB, %d MB) = %d, want %d", c.live/mb, c.roots/mb, got, c.want)
		}
	}
}
