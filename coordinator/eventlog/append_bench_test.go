package eventlog

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// pointerLog is Log's append as it was before the sizes moved into the
// ring's slots: each event keeps its own size, so dropping the oldest
// event of a full window reads an event thousands of appends old.
// BenchmarkAppendFull's baseline.
type pointerLog struct {
	sessionID   string
	mu          sync.Mutex
	ring        []*pointerEvent
	size        int
	start       int
	count       int
	bytes       int
	max         int
	nextID      int64
	closed      bool
	wakeAll     chan struct{}
	wakeMessage map[string]chan struct{}
}

type pointerEvent struct {
	ev   api.Event
	size int
	json EventJSON
}

func (l *pointerLog) append(ev api.Event) api.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ev
	}
	ev.ID = l.nextID
	l.nextID++
	ev.SessionID = l.sessionID
	ev.Time = time.Now().UTC()
	size := eventSize(&ev)
	for l.count == l.size || l.count > 0 && l.max > 0 && l.bytes+size > l.max {
		l.bytes -= l.ring[l.start].size
		l.ring[l.start] = nil
		l.start = (l.start + 1) % len(l.ring)
		l.count--
	}
	if l.count == len(l.ring) && len(l.ring) < l.size {
		grown := make([]*pointerEvent, min(l.size, max(minRing, 2*len(l.ring))))
		for i := range l.count {
			grown[i] = l.ring[(l.start+i)%len(l.ring)]
		}
		l.ring, l.start = grown, 0
	}
	i := (l.start + l.count) % len(l.ring)
	le := &pointerEvent{ev: ev, size: size}
	le.json.ev = &le.ev
	l.ring[i] = le
	l.count++
	l.bytes += size
	if l.wakeAll != nil {
		close(l.wakeAll)
		l.wakeAll = nil
	}
	if ch, ok := l.wakeMessage[ev.MessageID]; ok {
		close(ch)
		delete(l.wakeMessage, ev.MessageID)
	}
	return ev
}

// BenchmarkAppendFull appends a read's three events (queued, started,
// finished with a 1 KB result) to a full window of the default size
// (4,096 events, 8 MiB), as a busy session does at every call, against
// pointerLog, where each drop reads the size from the event it drops.
// Each append is timed alone after 4 MiB were written (more than a
// core's L2 holds) or 64 MiB (more than the L3 too), as a server
// answering one caller meets its log (benchpair.Cold). Back to back the
// two are alike: the events dropped were allocated in order, and the
// prefetcher follows them.
//
//	go test -run '^$' -bench AppendFull -benchtime 2000x -count 4 ./coordinator/eventlog/
func BenchmarkAppendFull(b *testing.B) {
	for _, mib := range []int{4, 64} {
		b.Run(fmt.Sprintf("evict=%dMiB", mib), func(b *testing.B) {
			const size, maxBytes = 4096, 8 << 20
			rec := api.CallRecord{ToolUseID: "toolu_1", Name: "read_file", State: api.StateQueued}
			res := api.NewToolResult("toolu_1", strings.Repeat("0123456789abcde\n", 64), false)
			events := []api.Event{
				{Type: api.EventToolQueued, ToolUseID: "toolu_1", Call: &rec},
				{Type: api.EventToolStarted, ToolUseID: "toolu_1", Call: &rec},
				{Type: api.EventToolFinished, ToolUseID: "toolu_1", Call: &rec, Result: &res},
			}
			fast := New("s1", size, maxBytes)
			plain := &pointerLog{sessionID: "s1", size: size, max: maxBytes, nextID: 1, wakeMessage: map[string]chan struct{}{}}
			for i := range 2 * size { // both windows full
				fast.Append(events[i%3])
				plain.append(events[i%3])
			}
			i, j := 0, 0
			benchpair.Cold(b, mib<<20, func() {
				fast.Append(events[i%3])
				i++
			}, func() {
				plain.append(events[j%3])
				j++
			})
		})
	}
}
