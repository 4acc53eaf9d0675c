package filememory

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// TestReadTurns: reads of one file are counted in the order they were
// queued, whichever runs first; a read of another file waits for nothing.
func TestReadTurns(t *testing.T) {
	m := New(Config{})
	mtime := time.Unix(1, 0)
	first, other, second := m.QueueRead("a.txt"), m.QueueRead("b.txt"), m.QueueRead("a.txt")

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// The first read of a.txt is still pending: b.txt is counted at once.
	if n := m.CountRead(ctx, other, "b.txt", mtime); n != 1 || ctx.Err() != nil {
		t.Fatalf("b.txt count = %d (ctx %v), want 1 without waiting", n, ctx.Err())
	}
	got := make(chan int, 1)
	go func() { got <- m.CountRead(ctx, second, "a.txt", mtime) }()
	if n := m.CountRead(ctx, first, "a.txt", mtime); n != 1 {
		t.Errorf("first read of a.txt counted %d, want 1", n)
	}
	select {
	case n := <-got:
		if n != 2 {
			t.Errorf("second read of a.txt counted %d, want 2", n)
		}
	case <-ctx.Done():
		t.Fatal("the second read was never counted")
	}
	// A turn that ends without counting (a refused call) frees the next.
	third, fourth := m.QueueRead("a.txt"), m.QueueRead("a.txt")
	m.EndRead(third)
	if n := m.CountRead(ctx, fourth, "a.txt", mtime); n != 3 || ctx.Err() != nil {
		t.Errorf("count after an ended turn = %d (ctx %v), want 3", n, ctx.Err())
	}
}

// TestReadTurnsLeaveNothing: once every queued read has ended, the
// session holds no map of turns (an emptied map keeps its slots, and a
// thousand idle sessions would each hold one).
func TestReadTurnsLeaveNothing(t *testing.T) {
	m := New(Config{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	a, b := m.QueueRead("a.txt"), m.QueueRead("b.txt")
	m.CountRead(ctx, a, "a.txt", time.Unix(1, 0))
	if m.readTurns == nil {
		t.Fatal("the turns were dropped while a read was still queued")
	}
	m.EndRead(b)
	if m.readTurns != nil {
		t.Errorf("after every read ended the session holds %d turns' map, want none", len(m.readTurns))
	}
	// A read queued afterwards still gets its turn.
	if n := m.CountRead(ctx, m.QueueRead("a.txt"), "a.txt", time.Unix(1, 0)); n != 2 {
		t.Errorf("a later read of a.txt counted %d, want 2", n)
	}
}

// BenchmarkReadTurns queues and counts one read at a time, as a session
// of one caller does, with the turn in the session's first slot and,
// side by side, in turns allocated for the read.
//
//	go test -run '^$' -bench ReadTurns -benchtime 100000x ./coordinator/filememory/
func BenchmarkReadTurns(b *testing.B) {
	ctx := context.Background()
	mtime := time.Unix(1, 0)
	fast, plain := New(Config{}), New(Config{})
	benchpair.Run(b, func() {
		fast.CountRead(ctx, fast.QueueRead("one_kb.txt"), "one_kb.txt", mtime)
	}, func() {
		plain.readTurns = make([]readTurn, 0, 1) // what QueueRead would do without firstTurn
		plain.CountRead(ctx, plain.QueueRead("one_kb.txt"), "one_kb.txt", mtime)
	})
}
