package procs

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeProcs stands for GOMAXPROCS: the governor's lower and restore
// set it, and the tests read it.
type fakeProcs struct{ one atomic.Bool }

func newTestGovernor(quiet time.Duration) (*Governor, *fakeProcs) {
	f := &fakeProcs{}
	g := newGovernor(func() { f.one.Store(true) }, func() { f.one.Store(false) }, quiet)
	return g, f
}

// waitLowered polls, with a deadline, until the governor has lowered
// GOMAXPROCS to one.
func waitLowered(t *testing.T, g *Governor, f *fakeProcs) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !f.one.Load() || !g.lowered.Load() {
		if time.Now().After(deadline) {
			t.Fatal("GOMAXPROCS never went down to one")
		}
		runtime.Gosched()
	}
}

// watching starts the governor's watch, as Start does.
func watching(g *Governor) {
	g.mu.Lock()
	g.watchLocked()
	g.mu.Unlock()
}

// watchedGovernor is a test governor whose watch runs, stopped when the
// test ends.
func watchedGovernor(t *testing.T, quiet time.Duration) (*Governor, *fakeProcs) {
	g, f := newTestGovernor(quiet)
	watching(g)
	t.Cleanup(g.stop)
	return g, f
}

func TestLightCallsOneAtATimeLower(t *testing.T) {
	g, f := watchedGovernor(t, 5*time.Millisecond)
	for range 3 {
		g.call(true).Done()
	}
	waitLowered(t, g, f)
	// More light calls one after another keep it there.
	for range 100 {
		tok := g.call(true)
		if !f.one.Load() {
			t.Fatal("a light call alone raised GOMAXPROCS")
		}
		tok.Done()
	}
}

func TestOverlappingCallsRestoreBeforeTheSecondStarts(t *testing.T) {
	g, f := watchedGovernor(t, 5*time.Millisecond)
	waitLowered(t, g, f)
	first := g.call(true)
	second := g.call(true)
	if f.one.Load() || g.lowered.Load() {
		t.Fatal("two calls at once run on one processor")
	}
	second.Done()
	first.Done()
	waitLowered(t, g, f)
}

func TestACallThatIsNotLightRestores(t *testing.T) {
	g, f := watchedGovernor(t, 5*time.Millisecond)
	waitLowered(t, g, f)
	tok := g.call(false)
	if f.one.Load() {
		t.Fatal("a writing call runs on one processor")
	}
	tok.Done()
	waitLowered(t, g, f)
}

func TestHoldKeepsTheDefaultUntilDone(t *testing.T) {
	g, f := watchedGovernor(t, time.Millisecond)
	waitLowered(t, g, f)
	h := g.hold()
	if f.one.Load() {
		t.Fatal("Hold returned with GOMAXPROCS at one")
	}
	// Well past the quiet time, the watch must not lower it while held.
	g.wanted.Store(g.since() - int64(time.Hour))
	if wait, done := g.tryLower(); done || f.one.Load() {
		t.Fatalf("lowered under a hold (wait %v, done %v)", wait, done)
	}
	h.Done()
	waitLowered(t, g, f)
}

func TestQuietCountsFromTheEndOfWhatWantedMore(t *testing.T) {
	g, f := newTestGovernor(time.Hour)
	defer g.stop()
	tok := g.call(false)
	tok.Done()
	if _, done := g.tryLower(); done || f.one.Load() {
		t.Fatal("lowered right after a writing call ended")
	}
	g.wanted.Store(g.since() - int64(time.Hour))
	if _, done := g.tryLower(); !done || !f.one.Load() {
		t.Fatal("not lowered after the quiet time")
	}
}

// TestNeverOneProcessorUnderOverlap runs calls from many goroutines
// while the watch keeps trying to lower: whenever a call that overlapped
// another or was not light is running, GOMAXPROCS is not one.
func TestNeverOneProcessorUnderOverlap(t *testing.T) {
	g, f := watchedGovernor(t, 50*time.Microsecond)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for w := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				tok := g.call((w+i)%5 != 0)
				runtime.Gosched() // the call runs: let the watch try meanwhile
				if tok.wide && f.one.Load() {
					bad.Add(1)
				}
				tok.Done()
			}
		})
	}
	wg.Wait()
	if n := bad.Load(); n > 0 {
		t.Fatalf("%d calls that wanted more ran with GOMAXPROCS at one", n)
	}
}

func TestStopRestoresTheDefault(t *testing.T) {
	g, f := newTestGovernor(time.Millisecond)
	watching(g)
	waitLowered(t, g, f)
	g.stop()
	if f.one.Load() {
		t.Fatal("stop left GOMAXPROCS at one")
	}
	if tok := g.call(false); f.one.Load() {
		t.Fatal("a stopped governor changed GOMAXPROCS")
	} else {
		tok.Done()
	}
}

func TestStartLeavesAGOMAXPROCSFromTheEnvironment(t *testing.T) {
	stop := Start(func(k string) string {
		if k == "GOMAXPROCS" {
			return "2"
		}
		return ""
	})
	defer stop()
	if current.Load() != nil {
		t.Fatal("a governor runs though GOMAXPROCS is set")
	}
	if tok := Call(false); tok.g != nil {
		t.Fatal("Call without a governor reached one")
	}
}

// TestStartGovernsTheRuntime: with the runtime's own GOMAXPROCS, a
// governor lowers it to one for light calls alone and Hold has the
// default back before it returns.
func TestStartGovernsTheRuntime(t *testing.T) {
	def := runtime.GOMAXPROCS(0)
	if def < 2 {
		t.Skip("one processor: nothing to govern")
	}
	stop := Start(func(string) string { return "" })
	defer func() {
		stop()
		if n := runtime.GOMAXPROCS(0); n != def {
			t.Errorf("GOMAXPROCS %d after stop, want %d", n, def)
		}
	}()
	g := current.Load()
	if g == nil {
		t.Fatal("no governor")
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.GOMAXPROCS(0) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("GOMAXPROCS never went down to one")
		}
		Call(true).Done()
		time.Sleep(time.Millisecond)
	}
	h := Hold()
	if n := runtime.GOMAXPROCS(0); n != def {
		t.Fatalf("GOMAXPROCS %d under Hold, want %d", n, def)
	}
	h.Done()
}

// loweredGovernor is a test governor at one processor, as after a quiet
// time, whose quiet time is too long for it to lower again by itself
// during the test.
func loweredGovernor(t *testing.T) (*Governor, *fakeProcs) {
	g, f := newTestGovernor(time.Hour)
	g.lower()
	g.lowered.Store(true)
	t.Cleanup(g.stop)
	return g, f
}

// TestRequestsOnTwoConnectionsRestore: a request on a second
// connection while the first one's is served, or within the quiet time
// of its end, has the default back before it is served.
func TestRequestsOnTwoConnectionsRestore(t *testing.T) {
	a, b := new(int), new(int)
	g, f := loweredGovernor(t)
	g.connActive(a)
	g.connActive(b) // while a's request is served
	if f.one.Load() {
		t.Fatal("requests on two connections at once on one processor")
	}

	g, f = loweredGovernor(t)
	g.connActive(a)
	g.connIdle(a)
	g.connActive(b) // within the quiet time of a's end
	if f.one.Load() {
		t.Fatal("requests on two connections close together on one processor")
	}
}

// TestAnIdleConnectionDoesNotCount: a connection that is open but idle
// past the quiet time (a dashboard's, between its scrapes), or closed,
// leaves the one processor to another connection's requests, one after
// another.
func TestAnIdleConnectionDoesNotCount(t *testing.T) {
	idle, calls := new(int), new(int)
	g, f := loweredGovernor(t)
	g.connActive(idle)
	g.connIdle(idle)
	g.lastAt -= int64(g.quiet) // the quiet time passes
	for range 3 {
		g.connActive(calls)
		g.connIdle(calls)
	}
	if !f.one.Load() {
		t.Fatal("an idle connection had the default back")
	}

	g, f = loweredGovernor(t)
	g.connActive(idle)
	g.connClosed(idle)
	g.connActive(calls)
	if !f.one.Load() {
		t.Fatal("a closed connection had the default back")
	}
}

// TestAWideCallKeepsTheDefaultToItsEnd: a call that wanted more when it
// started (here: not light) keeps the default however long it runs, even
// once it is the only call.
func TestAWideCallKeepsTheDefaultToItsEnd(t *testing.T) {
	g, f := watchedGovernor(t, time.Millisecond)
	waitLowered(t, g, f)
	tok := g.call(false)
	g.wanted.Store(g.since() - int64(time.Hour))
	if _, done := g.tryLower(); done || f.one.Load() {
		t.Fatal("lowered while a writing call runs")
	}
	tok.Done()
	waitLowered(t, g, f)
}
