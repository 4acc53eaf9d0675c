package coordinator_test

import (
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
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
		l := coordinator.NewEventLog("s", 16)
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
		l := coordinator.NewEventLog("s", 16)
		for _, m := range []string{"a", "b", "a", "a"} {
			l.Append(api.Event{Type: "x", MessageID: m})
		}
		b := l.ReadMessage("a", 0, 2)
		if len(b.Events) != 2 || b.Next != 3 {
			t.Errorf("got %d events, Next %d; want 2 and 3", len(b.Events), b.Next)
		}
	})
	t.Run("woken only by its own message", func(t *testing.T) {
		l := coordinator.NewEventLog("s", 16)
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
		l := coordinator.NewEventLog("s", 16)
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
		l := coordinator.NewEventLog("s", 16)
		first := l.ReadMessage("m0", 0, 1).Wake
		for i := 1; i <= 1024; i++ {
			l.ReadMessage(fmt.Sprint("m", i), 0, 1)
		}
		if !isClosed(first) {
			t.Error("a full table of message waits was kept instead of woken and cleared")
		}
	})
}
