package search

import (
	"context"
	"sync"
)

// workQueue is a LIFO stack of work shared by the walk's workers. LIFO keeps
// the walk depth-first, which visits paths in roughly sorted order and keeps
// few directory handles open; it ends when the stack is empty and no worker
// is busy, since only a busy worker can add work.
type workQueue[T any] struct {
	mu     sync.Mutex
	cond   sync.Cond
	items  []T
	busy   int
	closed bool
}

func newWorkQueue[T any](ctx context.Context, items ...T) *workQueue[T] {
	q := &workQueue[T]{items: items}
	q.cond.L = &q.mu
	context.AfterFunc(ctx, q.close)
	return q
}

// pop blocks until there is work; false means the walk is over.
func (q *workQueue[T]) pop() (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && q.busy > 0 && !q.closed {
		q.cond.Wait()
	}
	var zero T
	if len(q.items) == 0 || q.closed {
		q.closed = true
		q.cond.Broadcast()
		return zero, false
	}
	it := q.items[len(q.items)-1]
	q.items[len(q.items)-1] = zero
	q.items = q.items[:len(q.items)-1]
	q.busy++
	return it, true
}

// done marks one popped item finished.
func (q *workQueue[T]) done() {
	q.mu.Lock()
	q.busy--
	if q.busy == 0 && len(q.items) == 0 {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}

// push adds items; the last one is popped first.
func (q *workQueue[T]) push(items ...T) {
	if len(items) == 0 {
		return
	}
	q.mu.Lock()
	q.items = append(q.items, items...)
	q.mu.Unlock()
	q.cond.Broadcast()
}

// drain empties the stack after the walk, returning what was never run.
func (q *workQueue[T]) drain() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	left := q.items
	q.items = nil
	return left
}

func (q *workQueue[T]) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}
