// Package procs keeps GOMAXPROCS at one while toolgate serves one light
// call at a time, and at the runtime's default whenever work wants more
// than one thread: requests on two connections at once or close
// together, calls that overlap, a call that is not light (it writes,
// runs a command, calls an MCP server or a subagent), a worker pool
// (Hold). An agent posts its calls one after another, most of them
// reads; with a second processor
// idle, every goroutine net/http starts or wakes for a request (the
// connection's background read when the body ends, woken again when
// the answer is done) wakes a thread to run it there, a futex wake and
// an interprocessor interrupt each, and that thread then spins for work
// on the core the caller wants for itself. With one processor the
// goroutine waits for the request's own thread instead.
//
// Calls that come at once cannot be told by their overlap alone: on one
// processor each runs to its end before the next is read. Connections
// can: a request on one connection while another has one, or had one
// within the quiet time, means calls may come side by side, so it
// restores the default (ConnActive, before the request is served). A
// connection open but idle between requests (a dashboard's scrapes, a
// browser's pool, an event stream that carries no calls) does not: it
// kept GOMAXPROCS at the default for as long as it stayed open, 8-17 %
// on a lone caller's read p50. Speed only:
// bench/peers/run.sh with `-baseline` a build without it (read_file's
// p50 and CPU per call against envd) and BenchmarkCall (./internal/procs/)
// defend it (docs/benchmarks.md).
//
// Only `toolgate serve` starts a Governor, and not when GOMAXPROCS is set
// in the environment or the runtime's default is one already: library
// users and tests keep the runtime's setting.
package procs

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// quiet is how long nothing may have wanted more than one processor
// before the governor lowers GOMAXPROCS to one. Each change stops the
// world for 20-130 µs; the wait keeps a mix of overlapping calls from
// changing it back and forth.
const quiet = 50 * time.Millisecond

// Governor lowers and raises GOMAXPROCS for the calls it is told of.
type Governor struct {
	// lower sets one processor; restore goes back to the runtime's
	// default (runtime.SetDefaultGOMAXPROCS: also the automatic updates
	// from the CPU limit, which setting GOMAXPROCS turns off).
	lower, restore func()
	quiet          time.Duration
	start          time.Time

	calls   atomic.Int32 // calls in flight
	wides   atomic.Int32 // of those, the ones that wanted more when they started
	holds   atomic.Int32 // worker pools running
	lowered atomic.Bool
	// arrived tells Yield that input came for the server's connections
	// (WatchInput); nil until told.
	arrived atomic.Pointer[func() bool]
	// wanted is when something last wanted more than one processor (its
	// start and its end), in nanoseconds since start.
	wanted atomic.Int64

	// The connection that last had a request (ConnActive), when it began
	// or, once served, ended, and whether it is still being served.
	connMu   sync.Mutex
	lastConn any
	lastAt   int64
	lastBusy bool

	mu       sync.Mutex // serializes changes of GOMAXPROCS
	watching bool       // a goroutine waits to lower it
	stopped  bool
}

// current is the governor of the running serve, nil when none governs.
var current atomic.Pointer[Governor]

// Start governs GOMAXPROCS until the returned stop, unless GOMAXPROCS is
// set in the environment (getenv), the runtime's default is one, or a
// governor runs already.
func Start(getenv func(string) string) (stop func()) {
	if getenv("GOMAXPROCS") != "" || runtime.GOMAXPROCS(0) <= 1 {
		return func() {}
	}
	g := newGovernor(func() { runtime.GOMAXPROCS(1) }, func() { runtime.SetDefaultGOMAXPROCS() }, quiet)
	if !current.CompareAndSwap(nil, g) {
		return func() {}
	}
	g.mu.Lock()
	g.watchLocked()
	g.mu.Unlock()
	return func() {
		current.CompareAndSwap(g, nil)
		g.stop()
	}
}

func newGovernor(lower, restore func(), quiet time.Duration) *Governor {
	return &Governor{lower: lower, restore: restore, quiet: quiet, start: time.Now()}
}

// Token is one call or worker pool told to the governor; Done ends it.
type Token struct {
	g          *Governor
	wide, hold bool
}

// Call tells the running governor of a call starting; light says it has
// no effects (it neither writes, runs a command, nor calls an MCP server
// or a subagent). A call that is not light, or that overlaps another,
// has GOMAXPROCS back at the default before Call returns.
func Call(light bool) Token {
	g := current.Load()
	if g == nil {
		return Token{}
	}
	return g.call(light)
}

// Hold tells the running governor of work that runs goroutines side by
// side (a search's workers): GOMAXPROCS is the runtime's default when it
// returns and stays so until Done. Size the pool after Hold.
func Hold() Token {
	g := current.Load()
	if g == nil {
		return Token{}
	}
	return g.hold()
}

// ConnActive tells the running governor that conn has a request to
// serve (http.Server's StateActive): when another connection has one,
// or had one within the quiet time, GOMAXPROCS is the runtime's default
// when it returns.
func ConnActive(conn any) {
	if g := current.Load(); g != nil {
		g.connActive(conn)
	}
}

// ConnIdle tells the running governor that conn served its request and
// waits for the next (StateIdle).
func ConnIdle(conn any) {
	if g := current.Load(); g != nil {
		g.connIdle(conn)
	}
}

// ConnClosed tells the running governor that conn closed or was taken
// over (hijacked).
func ConnClosed(conn any) {
	if g := current.Load(); g != nil {
		g.connClosed(conn)
	}
}

// Yield lets other goroutines run while the governor holds GOMAXPROCS at
// one: for long loops off the calls' path (the store's commits), which
// would otherwise keep a call waiting for the only processor. Letting
// the runnable ones run is not enough for a call that has just come:
// its goroutine waits in the network poller, which the scheduler looks
// at only once its run queues are empty, and a goroutine that yields
// (runtime.Gosched) is on one of them, so the call would wait for the
// loop's end, or for the monitor thread's poll 10 ms later. So when
// input came for the server's connections (WatchInput), Yield sleeps
// instead, for inputPause: its timer not yet due, the scheduler finds
// nothing to run, polls the network and runs the call; the loop goes
// on once the call's goroutine waits. A call that comes during a
// commit then waits for one row of it (BenchmarkYieldToInput,
// ./internal/procs/; docs/benchmarks.md).
func Yield() {
	g := current.Load()
	if g == nil || !g.lowered.Load() {
		return
	}
	if arrived := g.arrived.Load(); arrived != nil && (*arrived)() {
		time.Sleep(inputPause)
		return
	}
	runtime.Gosched()
}

// inputPause is how long Yield sleeps for input that came: longer than
// the way from the sleep to the scheduler's look at the network (a few
// microseconds), so that the look comes first. When the input is for
// no goroutine waiting in the poller, the scheduler waits in it for its
// shortest wait, a millisecond, before the loop goes on.
const inputPause = 50 * time.Microsecond

// WatchInput tells the running governor how to learn that input came
// for the server's connections since it last asked
// (nowait.Arrivals.Arrived), for Yield; nil forgets it, before what it
// asks is closed.
func WatchInput(arrived func() bool) {
	g := current.Load()
	switch {
	case g == nil:
	case arrived == nil:
		g.arrived.Store(nil)
	default:
		g.arrived.Store(&arrived)
	}
}

func (g *Governor) call(light bool) Token {
	n := g.calls.Add(1)
	t := Token{g: g, wide: !light || n > 1}
	if t.wide {
		// Counted before want looks at lowered: a watch lowering at the
		// same time either sees it or has set lowered for want to see.
		g.wides.Add(1)
		g.want()
	}
	return t
}

// connActive notes conn's request and wants more than one processor
// when the last connection with a request was another, still serving
// one or done within the quiet time.
func (g *Governor) connActive(conn any) {
	now := g.since()
	g.connMu.Lock()
	side := g.lastConn != nil && g.lastConn != conn && (g.lastBusy || now-g.lastAt < int64(g.quiet))
	g.lastConn, g.lastAt, g.lastBusy = conn, now, true
	g.connMu.Unlock()
	if side {
		g.want()
	}
}

func (g *Governor) connIdle(conn any) {
	now := g.since()
	g.connMu.Lock()
	if g.lastConn == conn {
		g.lastAt, g.lastBusy = now, false
	}
	g.connMu.Unlock()
}

func (g *Governor) connClosed(conn any) {
	g.connMu.Lock()
	if g.lastConn == conn {
		g.lastConn, g.lastBusy = nil, false
	}
	g.connMu.Unlock()
}

func (g *Governor) hold() Token {
	g.holds.Add(1)
	g.want()
	return Token{g: g, wide: true, hold: true}
}

// Done ends the call or the pool.
func (t Token) Done() {
	g := t.g
	if g == nil {
		return
	}
	switch {
	case t.hold:
		g.holds.Add(-1)
	case t.wide:
		g.wides.Add(-1)
		g.calls.Add(-1)
	default:
		g.calls.Add(-1)
	}
	if t.wide {
		// The quiet wait counts from the end of what wanted more.
		g.wanted.Store(g.since())
	}
}

func (g *Governor) since() int64 { return int64(time.Since(g.start)) }

// want notes that more than one processor is wanted now and, when
// GOMAXPROCS is one, restores the default before returning.
func (g *Governor) want() {
	g.wanted.Store(g.since())
	if !g.lowered.Load() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lowered.Load() && !g.stopped {
		g.restore()
		g.lowered.Store(false)
		g.watchLocked()
	}
}

// watchLocked starts the goroutine that lowers GOMAXPROCS once nothing
// has wanted more for the quiet time, unless one waits already.
func (g *Governor) watchLocked() {
	if g.watching || g.stopped {
		return
	}
	g.watching = true
	go g.watch()
}

func (g *Governor) watch() {
	t := time.NewTimer(g.quiet)
	defer t.Stop()
	for range t.C {
		next, done := g.tryLower()
		if done {
			return
		}
		t.Reset(next)
	}
}

// tryLower lowers GOMAXPROCS to one if nothing wants more and nothing
// has for the quiet time; otherwise it says how long to wait before
// looking again.
func (g *Governor) tryLower() (wait time.Duration, done bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped || g.lowered.Load() {
		g.watching = false
		return 0, true
	}
	// lowered is set before the check: a call that starts after it sees
	// it and waits on mu to restore the default; one that started before
	// is counted by the check.
	g.lowered.Store(true)
	idle := time.Duration(g.since() - g.wanted.Load())
	// A call that wanted more keeps it to its end, however long: a
	// command's output and its end are handled side by side too.
	if g.holds.Load() == 0 && g.wides.Load() == 0 && g.calls.Load() <= 1 && idle >= g.quiet {
		g.lower()
		g.watching = false
		return 0, true
	}
	g.lowered.Store(false)
	if g.holds.Load() > 0 || g.wides.Load() > 0 || g.calls.Load() > 1 {
		return g.quiet, false
	}
	return max(g.quiet-idle, time.Millisecond), false
}

// stop restores the default and ends the watch.
func (g *Governor) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lowered.Load() {
		g.restore()
		g.lowered.Store(false)
	}
	g.stopped = true
}
