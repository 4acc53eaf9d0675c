package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Defaults of server.gc_percent and server.gc_memory_limit_mb. A small
// call allocates about 12 KB, most of it garbage by its answer, and with
// Go's default (100) the collector ran every few hundred calls over a live
// heap of 15-30 MB, about a tenth of a call's CPU time. At 400 it runs a
// quarter as often; the soft limit keeps the heap of 1,000 sessions where
// Go's default would have it (the memory target of the read benchmarks).
const (
	defaultGCPercent       = 400
	defaultGCMemoryLimitMB = 64
)

// tuneGC sets the collector for serving: it collects when the heap has
// grown by percent since the last collection, but sooner once the
// process's memory would pass limitMB, and never more often than Go's
// default would, however large the live heap grows: after each
// collection the limit is raised to twice the live heap plus what the
// runtime holds besides, so a big live heap is not collected over and
// over (what a fixed soft limit does once the live heap nears it). An
// operator's GOGC or GOMEMLIMIT leaves the collector as they set it.
// The returned function puts the previous settings back.
func tuneGC(percent, limitMB int, getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	if percent <= 0 {
		percent = defaultGCPercent
	}
	if limitMB <= 0 {
		limitMB = defaultGCMemoryLimitMB
	}
	base := int64(limitMB) << 20
	prevPercent := debug.SetGCPercent(percent)
	prevLimit := debug.SetMemoryLimit(base)
	var mu sync.Mutex // a late collection's raise never lands after restore
	stopped := false
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	var arm func()
	arm = func() {
		// A finalizer of a fresh object runs after the next collection.
		runtime.SetFinalizer(new(gcCycle), func(*gcCycle) {
			mu.Lock()
			defer mu.Unlock()
			if stopped {
				return
			}
			metrics.Read(samples)
			heap := uint64(0)
			for _, s := range samples[2:] {
				heap += s.Value.Uint64()
			}
			debug.SetMemoryLimit(gcLimit(base, samples[0].Value.Uint64(), samples[1].Value.Uint64(), heap))
			arm()
		})
	}
	arm()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}

// gcCycle is the object whose finalizer marks a collection.
type gcCycle struct{ _ [16]byte } // not zero-sized: those are never finalized

// gcLimit is the soft memory limit after a collection: base, or, when the
// live heap has grown past what base leaves room for, twice the live heap
// plus what the runtime holds besides its heap (stacks, its own
// structures), as much room as Go's default gives. heap is all the
// runtime's heap memory, objects and free spans alike: counting free
// spans as room needed would raise the limit after every collection.
func gcLimit(base int64, live, total, heap uint64) int64 {
	other := uint64(0)
	if total > heap {
		other = total - heap
	}
	need := 2*live + other
	if need > math.MaxInt64 || int64(need) < base {
		return base
	}
	return int64(need)
}
