package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// heapFloor is the smallest heap goal serve lets the garbage collector
// aim for. Under GOGC's default of 100 the goal is twice the live heap,
// and no less than 4 MB: toolgate serving small calls keeps a few MB
// live, so it collected every few MB it allocated, a tenth of a small
// call's CPU. With the floor a small heap is collected once per
// heapFloor allocated; a live heap above half the floor is collected
// as GOGC=100 does. Speed only: BenchmarkReadVsFilesystemMCP and
// BenchmarkToolUseVsBare defend it (GC 2.7-3.2 % of toolgate's CPU per
// read at 16 callers with defaults; 2.6-3.1 % with a 48 MB floor, 5.2-6.4
// % with 32; 5.9 % of GC marking without a floor; docs/benchmarks.md).
// The floor is resident memory: BenchmarkManySessionsMemory bounds it
// (a thousand sessions under load peaked at 92-93 MB with 48, 83-85
// with 40, 82-86 with 32).
const heapFloor = 40 << 20

// gcFloor raises GOGC after each collection so that the next heap goal
// is about heapFloor while the live heap is small, and puts it back to
// 100 once the live heap is half the floor or more. It runs while at
// least one serve does, unless GOGC or GOMEMLIMIT is set: then the
// runtime does as they say.
var gcFloor struct {
	mu      sync.Mutex
	serving int  // serves running that asked for the floor
	armed   bool // a collection's sentinel is waiting to be collected
	percent int  // the GOGC set last
	before  int  // the GOGC before the first serve
}

// keepHeapFloor starts the floor for one serve and returns what ends it.
func keepHeapFloor(getenv func(string) string) (stop func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	gcFloor.mu.Lock()
	defer gcFloor.mu.Unlock()
	if gcFloor.serving++; gcFloor.serving == 1 {
		gcFloor.before = debug.SetGCPercent(100)
		gcFloor.percent = 100
		tuneGC()
		if !gcFloor.armed {
			gcFloor.armed = true
			armGCSentinel()
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			gcFloor.mu.Lock()
			defer gcFloor.mu.Unlock()
			if gcFloor.serving--; gcFloor.serving == 0 {
				debug.SetGCPercent(gcFloor.before)
			}
		})
	}
}

// gcSentinel is an object nothing refers to: its finalizer runs after
// the collection that found it unreachable, which tunes GOGC and leaves
// a new sentinel for the next collection. (It holds a pointer so that it
// is not put in a tiny-allocation block, whose finalizers may never run.)
type gcSentinel struct{ _ *int }

func armGCSentinel() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		gcFloor.mu.Lock()
		defer gcFloor.mu.Unlock()
		if gcFloor.serving == 0 {
			gcFloor.armed = false
			return
		}
		tuneGC()
		armGCSentinel()
	})
}

// gcScanned are what the last collection found live: the heap, and the
// stacks and globals it scanned, which the runtime counts into the heap
// goal as well.
var gcScanned = []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}

// tuneGC sets GOGC for what the last collection found live; under
// gcFloor.mu.
func tuneGC() {
	metrics.Read(gcScanned)
	var v [3]uint64
	for i, s := range gcScanned {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	percent := gcPercentFor(v[0], v[1]+v[2])
	if percent != gcFloor.percent {
		debug.SetGCPercent(percent)
		gcFloor.percent = percent
	}
}

// gcPercentFor is the GOGC that puts the runtime's heap goal,
// live + (live+roots)*GOGC/100, at heapFloor for a live heap below half
// of it; 100 above. roots are the stacks and globals scanned. The
// runtime's own minimum goal, 4 MB*GOGC/100, caps GOGC at the value that
// makes that minimum the floor.
func gcPercentFor(live, roots uint64) int {
	const runtimeMinimum = 4 << 20
	if live >= heapFloor/2 {
		return 100
	}
	percent := (heapFloor - live) * 100 / max(live+roots, 1)
	return int(min(max(percent, 100), heapFloor*100/runtimeMinimum))
}
