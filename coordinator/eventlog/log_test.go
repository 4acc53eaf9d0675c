package eventlog_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/eventlog"
	"github.com/toolgate/toolgate/internal/testwait"
)

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestEventLogReadMessage(t *testing.T) {
	t.Run("only that message, cursor past the rest", func(t *testing.T) {
		l := eventlog.New("s", 16, 0)
		for i, m := range []string{"a", "b", "a", "b", "b"} {
			l.Append(api.Event{Type: "x", MessageID: m, ToolUseID: fmt.Sprint(i)})
		}
		b := l.ReadMessage("a", 0, 10)
		if len(b.Events) != 2 || b.Events[0].ID != 1 || b.Events[1].ID != 3 {
			t.Fatalf("got %+v, want events 1 and 3", b.Events)
		}
		if b.Next != 5 {
			t.Errorf("Next = %d, want 5 (the last id looked at)", b.Next)
		}
		if b = l.ReadMessage("a", b.Next, 10); len(b.Events) != 0 || b.Wake == nil || isClosed(b.Wake) {
			t.Errorf("read at the end: %d events, wake closed %v; want none and an open wake", len(b.Events), isClosed(b.Wake))
		}
	})
	t.Run("limit stops the scan at the last event returned", func(t *testing.T) {
		l := eventlog.New("s", 16, 0)
		for _, m := range []string{"a", "b", "a", "a"} {
			l.Append(api.Event{Type: "x", MessageID: m})
		}
		b := l.ReadMessage("a", 0, 2)
		if len(b.Events) != 2 || b.Next != 3 {
			t.Errorf("got %d events, Next %d; want 2 and 3", len(b.Events), b.Next)
		}
	})
	t.Run("woken only by its own message", func(t *testing.T) {
		l := eventlog.New("s", 16, 0)
		wakeA := l.ReadMessage("a", 0, 10).Wake
		all := l.Read(0, 10).Wake
		l.Append(api.Event{Type: "x", MessageID: "b"})
		if isClosed(wakeA) {
			t.Error("an event of message b woke the reader of message a")
		}
		if !isClosed(all) {
			t.Error("the whole-log reader was not woken")
		}
		l.Append(api.Event{Type: "x", MessageID: "a"})
		if !isClosed(wakeA) {
			t.Error("an event of message a did not wake its reader")
		}
	})
	t.Run("close wakes every reader", func(t *testing.T) {
		l := eventlog.New("s", 16, 0)
		wakeA, all := l.ReadMessage("a", 0, 10).Wake, l.Read(0, 10).Wake
		l.Close()
		if !isClosed(wakeA) || !isClosed(all) {
			t.Errorf("after Close: message wake closed %v, log wake closed %v", isClosed(wakeA), isClosed(all))
		}
		if b := l.ReadMessage("a", 0, 10); !b.Closed || !isClosed(b.Wake) {
			t.Errorf("read after Close: Closed %v, wake closed %v", b.Closed, isClosed(b.Wake))
		}
	})
	t.Run("waits of readers that left stay bounded", func(t *testing.T) {
		l := eventlog.New("s", 16, 0)
		first := l.ReadMessage("m0", 0, 1).Wake
		for i := 1; i <= 1024; i++ {
			l.ReadMessage(fmt.Sprint("m", i), 0, 1)
		}
		if !isClosed(first) {
			t.Error("a full table of message waits was kept instead of woken and cleared")
		}
	})
}

func TestEventLogByteBound(t *testing.T) {
	l := eventlog.New("s", 100, 10<<10)
	chunk := strings.Repeat("x", 4<<10)
	for i := range 10 {
		l.Append(api.Event{Type: api.EventToolOutput, Chunk: chunk, ToolUseID: fmt.Sprint(i)})
	}
	b := l.Read(0, 100)
	if len(b.Events) != 2 || b.Missed != 8 || b.Events[0].ID != 9 {
		t.Fatalf("kept %d events from id %d, missed %d; want 2 from 9, missed 8", len(b.Events), b.Events[0].ID, b.Missed)
	}
	t.Run("an event over the bound alone is kept", func(t *testing.T) {
		l.Append(api.Event{Type: api.EventToolOutput, Chunk: strings.Repeat("y", 20<<10)})
		b := l.Read(0, 100)
		if len(b.Events) != 1 || b.Events[0].ID != 11 {
			t.Errorf("kept %d events; want only the large one", len(b.Events))
		}
	})
	t.Run("results and previews count", func(t *testing.T) {
		l := eventlog.New("s", 100, 10<<10)
		big := api.NewToolResult("r", strings.Repeat("z", 6<<10), false)
		l.Append(api.Event{Type: api.EventToolFinished, Result: &big})
		l.Append(api.Event{Type: api.EventToolAwaitingApproval, Approval: &api.Approval{Preview: api.Preview{Diff: strings.Repeat("d", 6<<10)}}})
		if b := l.Read(0, 100); len(b.Events) != 1 || b.Missed != 1 {
			t.Errorf("kept %d, missed %d; want the approval alone", len(b.Events), b.Missed)
		}
	})
}

func TestEventLogWaitFor(t *testing.T) {
	t.Run("an event appended later", func(t *testing.T) {
		l := eventlog.New("s", 16, 0)
		l.Append(api.Event{Type: "x"})
		got := make(chan api.Event, 1)
		go func() {
			ev, _ := l.WaitFor(t.Context(), 0, func(ev api.Event) bool { return ev.Type == "y" })
			got <- ev
		}()
		l.Append(api.Event{Type: "y", ToolUseID: "want"})
		if ev := testwait.Receive(t, got); ev.ToolUseID != "want" || ev.ID != 2 {
			t.Errorf("got %+v, want the second event", ev)
		}
	})
	t.Run("the log ends first", func(t *testing.T) {
		l := eventlog.New("s", 16, 0)
		l.Close()
		if _, err := l.WaitFor(t.Context(), 0, func(api.Event) bool { return true }); !errors.Is(err, eventlog.ErrClosed) {
			t.Errorf("err = %v, want ErrClosed", err)
		}
	})
	t.Run("the context ends first", func(t *testing.T) {
		l := eventlog.New("s", 16, 0)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := l.WaitFor(ctx, 0, func(api.Event) bool { return true }); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

// The window grows as events arrive, including while the byte bound has
// already moved its start: every event kept is still read back in order.
func TestEventLogGrowsInOrder(t *testing.T) {
	l := eventlog.New("s", 64, 20<<10)
	big := strings.Repeat("x", 4<<10)
	total := 0
	for i := range 200 {
		ev := api.Event{Type: api.EventToolOutput, ToolUseID: fmt.Sprint(i)}
		if i < 20 || i%50 == 0 {
			ev.Chunk = big // few fit: the start moves before the ring is full
		}
		l.Append(ev)
		total++
		b := l.Read(0, 1000)
		if int(b.Missed)+len(b.Events) != total {
			t.Fatalf("after %d appends: %d missed + %d kept", total, b.Missed, len(b.Events))
		}
		for j, ev := range b.Events {
			if want := b.Missed + int64(j) + 1; ev.ID != want || ev.ToolUseID != fmt.Sprint(want-1) {
				t.Fatalf("after %d appends: event %d is id %d (%s), want %d", total, j, ev.ID, ev.ToolUseID, want)
			}
		}
		if len(b.Events) > 64 {
			t.Fatalf("kept %d events, the bound is 64", len(b.Events))
		}
	}
	if b := l.Read(0, 1000); len(b.Events) != 64 {
		t.Errorf("kept %d small events, want the full window of 64", len(b.Events))
	}
}

// A log costs what its events hold, not its whole window up front: a
// thousand sessions with a few events each must not hold a thousand
// full windows.
func TestEventLogAllocatesAsEventsArrive(t *testing.T) {
	const logs, size = 100, 100_000 // a full window of pointers is 800 KB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	kept := make([]*eventlog.Log, logs)
	for i := range kept {
		kept[i] = eventlog.New("s", size, 0)
		kept[i].Append(api.Event{Type: "x"})
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / logs; per > 16<<10 {
		t.Errorf("a log with one event allocated %d bytes; want it to grow as events arrive", per)
	}
	runtime.KeepAlive(kept)
}

// TestEventEncodedOnceForEveryReader: every reader of the window is handed
// the same encoding of an event, made once, so a hundred streams replaying
// a full window send one copy of its bytes, not a hundred (issue: 1,000
// subscribers without Last-Event-ID took the server from 152 MB to 6.2 GB).
func TestEventEncodedOnceForEveryReader(t *testing.T) {
	l := eventlog.New("s", 16, 0)
	l.Append(api.Event{Type: api.EventToolOutput, ToolUseID: "toolu_1", Stream: "stdout", Chunk: strings.Repeat("x", 64<<10)})
	l.Append(api.Event{Type: api.EventToolOutput, MessageID: "m", ToolUseID: "toolu_2", Stream: "stdout", Chunk: "y"})
	first := l.Read(0, 10)
	if len(first.JSON) != 2 || !strings.Contains(string(first.JSON[0].Bytes()), `"chunk":"xxx`) {
		t.Fatalf("first read: %d encodings", len(first.JSON))
	}
	readers := []eventlog.Batch{l.Read(0, 10), l.Read(1, 10), l.ReadMessage("m", 0, 10)}
	for i, b := range readers {
		got := b.JSON[len(b.JSON)-1].Bytes()
		if want := first.JSON[1].Bytes(); &got[0] != &want[0] {
			t.Errorf("reader %d got its own copy of event 2's encoding, want the shared bytes", i)
		}
	}
	if n := testing.AllocsPerRun(20, func() { _ = readers[0].JSON[0].Bytes() }); n != 0 {
		t.Errorf("reading an event's encoding again allocates %v times, want 0", n)
	}
}
