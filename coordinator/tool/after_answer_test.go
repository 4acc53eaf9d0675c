package tool

import (
	"context"
	"testing"
)

// closeCount counts its closes.
type closeCount struct{ n int }

func (c *closeCount) Close() error { c.n++; return nil }

// TestAfterAnswer: a closer waits for Run, and is closed at once without
// an AfterAnswer, once Run has run (a call that outlives its request) and
// past the bound; Run closes each closer once.
func TestAfterAnswer(t *testing.T) {
	var none *AfterAnswer
	c := &closeCount{}
	none.Close(c)
	if c.n != 1 {
		t.Fatalf("without an AfterAnswer: %d closes, want 1 at once", c.n)
	}

	ctx, a := WithAfterAnswer(context.Background())
	if AfterAnswerFrom(ctx) != a || AfterAnswerFrom(context.Background()) != nil {
		t.Fatal("AfterAnswerFrom does not find the AfterAnswer in its context alone")
	}
	held := make([]*closeCount, maxAfterAnswer+1)
	for i := range held {
		held[i] = &closeCount{}
		a.Close(held[i])
	}
	for i, c := range held[:maxAfterAnswer] {
		if c.n != 0 {
			t.Fatalf("closer %d closed before Run", i)
		}
	}
	if held[maxAfterAnswer].n != 1 {
		t.Fatalf("closer past the bound: %d closes, want 1 at once", held[maxAfterAnswer].n)
	}
	a.Run()
	a.Run()
	for i, c := range held {
		if c.n != 1 {
			t.Fatalf("closer %d: %d closes after Run, want 1", i, c.n)
		}
	}
	late := &closeCount{}
	a.Close(late)
	if late.n != 1 {
		t.Fatalf("closer after Run: %d closes, want 1 at once", late.n)
	}
}

// TestCallCloseAfterAnswer: a Call closes through its runtime's
// AfterAnswer, and at once without one.
func TestCallCloseAfterAnswer(t *testing.T) {
	c := &closeCount{}
	(&Call{}).CloseAfterAnswer(c)
	if c.n != 1 {
		t.Fatalf("a call without an AfterAnswer: %d closes, want 1", c.n)
	}
	_, a := WithAfterAnswer(context.Background())
	call := &Call{}
	call.Attach(Runtime{AfterAnswer: a})
	c = &closeCount{}
	call.CloseAfterAnswer(c)
	if c.n != 0 {
		t.Fatal("closed before the answer")
	}
	a.Run()
	if c.n != 1 {
		t.Fatalf("%d closes after Run, want 1", c.n)
	}
}
