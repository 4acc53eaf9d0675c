package tool

import (
	"context"
	"io"
	"sync"
)

// AfterAnswer holds what a request's calls may close only once its
// answer is sent: a read's file descriptor, whose close(2) is a
// microsecond of the read's latency that the client need not wait for
// (BenchmarkCloseAfterAnswer, ./handlers/; docs/benchmarks.md). The
// server runs it (Run) right after sending the answer, and again, at
// the latest, when the request's handler returns; a call with none
// (the MCP facade's, a library's, a test's) closes at once.
//
// It holds at most maxAfterAnswer closers: past them, and once it has
// run (a call that outlives its request), a closer is closed at once,
// so that nothing stays open past its request nor piles up in one.
type AfterAnswer struct {
	mu      sync.Mutex
	ran     bool
	n       int
	closers [maxAfterAnswer]io.Closer
}

// maxAfterAnswer bounds the descriptors one request keeps open until its
// answer is sent; a message of many reads closes the rest at once.
const maxAfterAnswer = 8

// Close closes c once the answer is sent, or at once when a is nil, has
// run or is full. The error of a deferred close is dropped: the caller
// only reads through c, and has answered by then.
func (a *AfterAnswer) Close(c io.Closer) {
	if a != nil {
		a.mu.Lock()
		if !a.ran && a.n < len(a.closers) {
			a.closers[a.n] = c
			a.n++
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
	}
	c.Close()
}

// Run closes what a holds; from then on Close closes at once. Running
// it again closes nothing more.
func (a *AfterAnswer) Run() {
	a.mu.Lock()
	held := a.closers
	n := a.n
	a.ran, a.n, a.closers = true, 0, [maxAfterAnswer]io.Closer{}
	a.mu.Unlock()
	for _, c := range held[:n] {
		c.Close()
	}
}

// afterAnswerCtx carries a request's AfterAnswer, in the one allocation
// it is made in.
type afterAnswerCtx struct {
	context.Context
	a AfterAnswer
}

type afterAnswerKey struct{}

// Value answers afterAnswerKey and passes on the rest.
func (c *afterAnswerCtx) Value(key any) any {
	if key == (afterAnswerKey{}) {
		return &c.a
	}
	return c.Context.Value(key)
}

// WithAfterAnswer returns ctx carrying a new AfterAnswer, for a request
// whose calls' closes may wait for its answer, and that AfterAnswer,
// which the caller must Run once the answer is sent or the request ends.
func WithAfterAnswer(ctx context.Context) (context.Context, *AfterAnswer) {
	c := &afterAnswerCtx{Context: ctx}
	return c, &c.a
}

// AfterAnswerFrom is the AfterAnswer WithAfterAnswer put in ctx, or nil.
func AfterAnswerFrom(ctx context.Context) *AfterAnswer {
	a, _ := ctx.Value(afterAnswerKey{}).(*AfterAnswer)
	return a
}
