package coordinator_test

import (
	"context"
	"errors"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

func addBlock(t *testing.T, c *coordinator.Coordinator, s *coordinator.Session, msgID string, u api.ToolUse) {
	t.Helper()
	if err := c.AddBlock(s, msgID, u); err != nil {
		t.Fatalf("add block %s: %v", u.ID, err)
	}
}

func complete(t *testing.T, c *coordinator.Coordinator, s *coordinator.Session, msgID string) <-chan api.MessageResponse {
	t.Helper()
	m, err := c.CompleteMessage(s, msgID)
	if err != nil {
		t.Fatalf("complete: %v", err)
	}
	ch := make(chan api.MessageResponse, 1)
	go func() { ch <- m.Wait(context.Background()) }()
	return ch
}

func TestStreamingStartsBeforeComplete(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	addBlock(t, c, s, "m1", use("probe", "a", probeIn{Safe: true, Hold: true}))
	r.waitStarted(t, "a") // the message is not complete yet
	addBlock(t, c, s, "m1", use("probe", "b", probeIn{Safe: true, Hold: true}))
	r.waitStarted(t, "b") // beside a, which is still held
	addBlock(t, c, s, "m1", use("probe", "w", probeIn{}))
	addBlock(t, c, s, "m1", use("probe", "c", probeIn{Safe: true}))
	if r.hasStarted("w") || r.hasStarted("c") {
		t.Error("a call behind running calls started before they ended")
	}
	done := complete(t, c, s, "m1")
	r.release("b")
	r.release("a")
	resp := receive(t, done)
	checkAnswer(t, resp, nil, "a", "b", "w", "c")
	checkAlone(t, r.snapshot(), "w")
	checkEvents(t, s, "a", "b", "w", "c")
	t.Run("message finished", func(t *testing.T) {
		b := s.Events.Read(0, 1000)
		evs := b.Events
		last := evs[len(evs)-1]
		if last.Type != api.EventMessageFinished || last.MessageID != "m1" || len(last.Response.Calls) != 4 {
			t.Errorf("last event %s of %s, want message.finished of m1 with 4 calls", last.Type, last.MessageID)
		}
	})
	t.Run("closed after completion", func(t *testing.T) {
		if _, err := c.CompleteMessage(s, "m1"); !errors.Is(err, coordinator.ErrMessageNotOpen) {
			t.Errorf("second completion: %v, want %v", err, coordinator.ErrMessageNotOpen)
		}
	})
}

func TestStreamingPartialBlocks(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	partial := api.ToolUse{Type: api.TypeToolUse, ID: "a", Name: "probe", Input: []byte(`{"tag":"a"}`), Partial: true}
	addBlock(t, c, s, "m1", partial)
	if len(s.Calls("")) != 0 {
		t.Errorf("a partial block made a call record")
	}
	b := s.Events.Read(0, 10)
	evs := b.Events
	if len(evs) != 1 || evs[0].Type != api.EventToolPartial || evs[0].Block == nil || string(evs[0].Block.Input) != `{"tag":"a"}` {
		t.Fatalf("events %+v, want one tool.partial with the block so far", evs)
	}
	addBlock(t, c, s, "m1", use("probe", "a", probeIn{}))
	resp := receive(t, complete(t, c, s, "m1"))
	checkAnswer(t, resp, map[string]api.CallStatus{"a": api.StatusSucceeded}, "a")
	if !r.hasStarted("a") {
		t.Error("the complete block did not run")
	}
	t.Run("partial after complete block", func(t *testing.T) {
		addBlock(t, c, s, "m2", use("probe", "b", probeIn{}))
		err := c.AddBlock(s, "m2", api.ToolUse{Type: api.TypeToolUse, ID: "b", Name: "probe", Partial: true})
		if !errors.Is(err, coordinator.ErrBlockRepeated) {
			t.Errorf("got %v, want %v", err, coordinator.ErrBlockRepeated)
		}
	})
}

func TestStreamingBlocksAfterComplete(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	addBlock(t, c, s, "m1", use("probe", "a", probeIn{Hold: true}))
	done := complete(t, c, s, "m1")
	if err := c.AddBlock(s, "m1", use("probe", "b", probeIn{})); !errors.Is(err, coordinator.ErrMessageClosed) {
		t.Errorf("block after complete: %v, want %v", err, coordinator.ErrMessageClosed)
	}
	r.release("a")
	checkAnswer(t, receive(t, done), nil, "a")
}

func TestStreamingDiscard(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	addBlock(t, c, s, "m1", use("probe", "read", probeIn{Safe: true, Hold: true}))
	addBlock(t, c, s, "m1", use("probe_block", "write", probeIn{Safe: true, Hold: true}))
	addBlock(t, c, s, "m1", use("probe", "later", probeIn{}))
	r.waitStarted(t, "read", "write")
	discarded := make(chan error, 1)
	go func() { discarded <- c.DiscardMessage(context.Background(), s, "m1") }()
	waitFinished(t, s, "read")
	waitFinished(t, s, "later")
	select {
	case err := <-discarded:
		t.Fatalf("discard returned (%v) while a block-kind call still ran", err)
	default:
	}
	r.release("write")
	if err := receive(t, discarded); err != nil {
		t.Fatal(err)
	}
	if r.hasStarted("later") {
		t.Error("a call not yet started ran after the discard")
	}
	t.Run("no results kept", func(t *testing.T) {
		if got := s.Calls(""); len(got) != 0 {
			t.Errorf("session still holds %d calls", len(got))
		}
	})
	t.Run("every call finished once", func(t *testing.T) {
		checkEvents(t, s, "read", "write", "later")
	})
	t.Run("ids run again", func(t *testing.T) {
		r2 := r.snapshot()
		resp := receive(t, runAsync(c, s, "m1", use("probe", "later", probeIn{})))
		checkAnswer(t, resp, map[string]api.CallStatus{"later": api.StatusSucceeded}, "later")
		if len(r.snapshot()) == len(r2) {
			t.Error("the id was answered from the discarded message")
		}
	})
	t.Run("unknown message", func(t *testing.T) {
		if err := c.DiscardMessage(context.Background(), s, "m1"); !errors.Is(err, coordinator.ErrMessageNotOpen) {
			t.Errorf("got %v, want %v", err, coordinator.ErrMessageNotOpen)
		}
	})
}

func TestStreamingInterruptCancelsLaterBlocks(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	addBlock(t, c, s, "m1", use("probe", "a", probeIn{Safe: true, Hold: true}))
	r.waitStarted(t, "a")
	s.Interrupt(errInterrupted)
	addBlock(t, c, s, "m1", use("probe", "b", probeIn{Safe: true}))
	resp := receive(t, complete(t, c, s, "m1"))
	checkAnswer(t, resp, map[string]api.CallStatus{"a": api.StatusCancelled, "b": api.StatusCancelled}, "a", "b")
	if r.hasStarted("b") {
		t.Error("a block posted after the interrupt ran")
	}
	checkEvents(t, s, "a", "b")
}

func TestStreamingOpenMessagesBounded(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{MaxOpenMessages: 2})
	addBlock(t, c, s, "m1", use("probe", "a", probeIn{Hold: true}))
	addBlock(t, c, s, "m2", use("probe", "b", probeIn{}))
	err := c.AddBlock(s, "m3", use("probe", "c", probeIn{}))
	if !errors.Is(err, coordinator.ErrTooManyOpen) {
		t.Fatalf("third open message: %v, want %v", err, coordinator.ErrTooManyOpen)
	}
	if s.HasCall("c") {
		t.Error("a refused block made a call")
	}
	r.release("a")
	receive(t, complete(t, c, s, "m1"))
	addBlock(t, c, s, "m3", use("probe", "c", probeIn{}))
}
