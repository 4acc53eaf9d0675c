package coordinator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// task is one tool_use of a message as the scheduler holds it.
type task struct {
	p     *callState
	e     *callEntry
	fresh bool // false: the id was already known; its result is awaited
	safe  bool
	// stop unregisters the hook that finishes the task early when its
	// call is cancelled while queued.
	stop func() bool
	done sync.WaitGroup // one count, a fresh task's end
	res  api.ToolResult
	rec  api.CallRecord
}

// scheduler runs one message's calls in Claude Code's order: consecutive
// concurrency-safe calls run together (at most max at once); an unsafe
// call starts only when nothing else of the message runs, and nothing
// after it starts until it ends. Calls start in block order, so a safe
// call behind a waiting unsafe one waits too. Calls may be added while
// earlier ones run: that is the streaming executor.
type scheduler struct {
	c     *Coordinator
	s     *Session
	msgID string
	// parent is the span of the request that posted the message.
	parent  trace.SpanContext
	max     int
	cascade []string
	// requestID is the HTTP request that brought the message, for the
	// calls' logs.
	requestID string
	// afterAnswer takes what the calls close once that request's answer
	// is sent (tool.AfterAnswer); nil without one.
	afterAnswer *tool.AfterAnswer

	mu            sync.Mutex
	tasks         []*task // every task, in block order
	queue         []*task // fresh tasks not yet started, in block order
	running       []*task
	unsafeRunning bool
	// abort, once set, cancels every call added later: a sibling failed,
	// the message was interrupted or discarded.
	abort error
	// holding keeps the first call that may start for the goroutine that
	// adds the blocks (held), which would otherwise only wait for it:
	// a one-call message then runs without a goroutine hop each way.
	holding bool
	held    *task
	// The first slots of tasks, queue and running: most messages hold
	// one call, which then needs no slice of its own. Speed only:
	// BenchmarkSchedulerOverhead and BenchmarkToolUseVsBare/route=messages
	// defend them (docs/benchmarks.md).
	tasks1, queue1, running1 [1]*task
	task1                    task // the first task
}

func (c *Coordinator) newScheduler(s *Session, msgID string) *scheduler {
	sc := &scheduler{c: c, s: s, msgID: msgID, max: c.cfg.MaxConcurrency, cascade: c.cfg.CascadeTools}
	if c.independentCalls(s.Dialect()) {
		sc.cascade = nil
	}
	sc.tasks, sc.queue, sc.running = sc.tasks1[:0], sc.queue1[:0], sc.running1[:0]
	return sc
}

// add prepares and claims a tool_use and starts it as soon as the order
// allows. It emits tool.queued before returning.
func (sc *scheduler) add(use api.ToolUse) {
	p := sc.c.prepare(sc.s, use)
	p.parent = sc.parent
	p.requestID = sc.requestID
	p.afterAnswer = sc.afterAnswer
	sc.mu.Lock()
	defer sc.mu.Unlock()
	// Claiming under the lock keeps block order, tool.queued order and
	// queue order the same when blocks race in.
	e, fresh := sc.c.enqueue(sc.s, sc.msgID, p)
	t := &sc.task1
	if len(sc.tasks) > 0 {
		t = &task{}
	}
	t.p, t.e, t.fresh, t.safe = p, e, fresh, p.concurrencySafe()
	t.done.Add(1)
	sc.tasks = append(sc.tasks, t)
	if !fresh {
		return
	}
	if sc.abort != nil {
		sc.s.Cancel(use.ID, sc.abort)
	}
	sc.queue = append(sc.queue, t)
	var buf [1]*task
	ready := sc.dispatchLocked(buf[:0])
	if len(sc.queue) > 0 && sc.queue[len(sc.queue)-1] == t {
		// Still waiting for its turn: a cancel ends it from the queue.
		// A call that starts at once needs no such hook (its pipeline
		// notices the cancel).
		t.stop = context.AfterFunc(e.ctx, func() { sc.drop(t) })
	}
	if sc.holding && sc.held == nil && len(ready) > 0 {
		sc.held, ready = ready[0], ready[1:]
	}
	sc.startAll(ready)
}

// runHeld ends holding and runs the held call, if any, on the calling
// goroutine (and, as exec does, the calls its end lets start).
func (sc *scheduler) runHeld() {
	sc.mu.Lock()
	t := sc.held
	sc.held, sc.holding = nil, false
	sc.mu.Unlock()
	if t != nil {
		sc.exec(t)
	}
}

// dispatchLocked takes from the head of the queue the calls the ordering
// rules let start now, marks them running and returns them; the caller
// starts them. They are appended to ready.
func (sc *scheduler) dispatchLocked(ready []*task) []*task {
	for len(sc.queue) > 0 {
		t := sc.queue[0]
		if sc.unsafeRunning || (!t.safe && len(sc.running) > 0) || len(sc.running) >= sc.max {
			break
		}
		sc.queue[0] = nil
		sc.queue = sc.queue[1:]
		// A call cancelled from here on still runs through the pipeline,
		// which notices and ends it without starting the tool.
		if t.stop != nil {
			t.stop()
		}
		sc.running = append(sc.running, t)
		sc.unsafeRunning = !t.safe
		ready = append(ready, t)
	}
	return ready
}

// startAll runs each ready call on a goroutine of its own.
func (sc *scheduler) startAll(ready []*task) {
	for _, t := range ready {
		go sc.exec(t)
	}
}

// exec runs one call, then applies the sibling cascade and lets the next
// calls start. It runs the first of them itself: a chain of unsafe calls
// then costs one goroutine, not one each.
func (sc *scheduler) exec(t *task) {
	for t != nil {
		t.res, t.rec = sc.c.runCall(sc.s, t.e, t.p)
		sc.mu.Lock()
		sc.running = slices.DeleteFunc(sc.running, func(o *task) bool { return o == t })
		if !t.safe {
			sc.unsafeRunning = false
		}
		if t.rec.Status == api.StatusFailed && slices.Contains(sc.cascade, t.p.toolName()) && sc.abort == nil {
			sc.abortLocked(fmt.Errorf("parallel tool call %s errored", t.p.use.ID))
		}
		var buf [1]*task
		ready := sc.dispatchLocked(buf[:0])
		sc.mu.Unlock()
		t.done.Done()
		t = nil
		if len(ready) > 0 {
			t = ready[0]
			sc.startAll(ready[1:])
		}
	}
}

// drop finishes a call cancelled while it waited in the queue: it ends at
// once, as cancelled, without waiting for its turn.
func (sc *scheduler) drop(t *task) {
	sc.mu.Lock()
	i := slices.Index(sc.queue, t)
	if i < 0 { // already dispatched; the pipeline ends it
		sc.mu.Unlock()
		return
	}
	sc.queue = slices.Delete(sc.queue, i, i+1)
	ready := sc.dispatchLocked(nil) // a dropped unsafe call no longer holds back the rest
	sc.mu.Unlock()
	sc.startAll(ready)
	t.res, t.rec = sc.c.runCall(sc.s, t.e, t.p)
	t.done.Done()
}

// abortLocked cancels the message's calls: the ones not yet started, the
// running cancel-kind ones, and block-kind ones still awaiting approval
// (a block-kind call already executing is never torn). Calls added
// afterwards are cancelled as they arrive.
func (sc *scheduler) abortLocked(cause error) {
	sc.abort = cause
	for _, t := range sc.queue {
		sc.s.Cancel(t.p.use.ID, cause)
	}
	for _, t := range sc.running {
		sc.s.cancelUnlessFinishing(t.p.use.ID, cause)
	}
}

// interrupt marks the message so later blocks are cancelled as they come;
// the calls already known were handled by Session.Interrupt.
func (sc *scheduler) interrupt(cause error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.abort == nil {
		sc.abort = cause
	}
}

// wait waits for every call of the message and answers with one
// tool_result per tool_use, in block order. ctx only bounds the wait for
// calls another message started (a repeated tool_use id); the message's
// own calls always end, since cancelled and block-kind calls do.
func (sc *scheduler) wait(ctx context.Context) api.MessageResponse {
	sc.mu.Lock()
	tasks := sc.tasks // append never changes the tasks already in it
	sc.mu.Unlock()
	resp := api.MessageResponse{
		MessageID: sc.msgID,
		Message:   api.UserMessage{Role: "user", Content: make([]api.ToolResult, len(tasks))},
		Calls:     make([]api.CallRecord, len(tasks)),
	}
	for i, t := range tasks {
		if t.fresh {
			t.done.Wait()
			resp.Message.Content[i], resp.Calls[i] = t.res, t.rec
		} else {
			resp.Message.Content[i], resp.Calls[i] = sc.c.await(ctx, sc.s, t.e)
		}
	}
	return resp
}

// settle waits until every call the message ran itself has ended.
func (sc *scheduler) settle() {
	sc.mu.Lock()
	tasks := sc.tasks // append never changes the tasks already in it
	sc.mu.Unlock()
	for _, t := range tasks {
		if t.fresh {
			t.done.Wait()
		}
	}
}

// ids lists the tool_use ids of the calls this message ran itself.
func (sc *scheduler) ids() []string {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	var out []string
	for _, t := range sc.tasks {
		if t.fresh {
			out = append(out, t.p.use.ID)
		}
	}
	return out
}

// idle reports whether none of the message's own calls is unfinished.
func (sc *scheduler) idle() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return len(sc.queue) == 0 && len(sc.running) == 0
}

var errDiscarded = errors.New("the message was discarded")
