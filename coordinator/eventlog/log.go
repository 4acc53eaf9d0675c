package eventlog

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
)

// Log is a session's bounded window of recent events. Appending never
// blocks: readers follow with a cursor (the last id they saw) and wait on a
// channel that is closed at the next append they care about, so a slow
// reader costs the writer nothing and memory stays bounded by the window
// size.
//
// Readers of one message's events wait on that message's own channel. With
// one shared channel, every append would wake every reader: fifty commands
// streaming to fifty clients made 2,500 wake-ups per round of lines, all
// contending for the log's lock, and a chunk waited hundreds of
// milliseconds behind them (BenchmarkCommandChunkLatency, server;
// docs/benchmarks.md).
type Log struct {
	sessionID string

	mu sync.Mutex
	// ring holds the window. It grows as events arrive, up to size: most
	// sessions see a few dozen events, and a thousand sessions each
	// holding a full window of empty slots cost most of a gigabyte.
	ring   []slot
	size   int // bound on the events kept
	start  int // index of the oldest event in ring
	count  int
	bytes  int // sum of the kept events' sizes
	max    int // bound on bytes; the newest event is kept whatever its size
	nextID int64
	// restored: the session came back after a restart (see Cursor).
	restored bool
	closed   bool
	// wakeAll is closed at the next append; wakeMessage[id] at the next
	// append of that message's events. Both are made only when a reader
	// waits, so appending with no reader allocates nothing.
	wakeAll     chan struct{}
	wakeMessage map[string]chan struct{}
}

// slot is one place of the ring: an event and its size. The size sits
// beside the pointer, not in the event: a full window drops its oldest
// event at each append, in the slot the append then fills, so the drop
// reads a line the append writes anyway instead of an event thousands of
// appends old, long gone from the cache (BenchmarkAppendFull;
// docs/benchmarks.md).
type slot struct {
	ev   *loggedEvent
	size int // eventSize
}

// loggedEvent is one event of the window, with its JSON once a reader
// asked for it.
type loggedEvent struct {
	ev   api.Event
	json EventJSON
}

// EventJSON is an event's JSON encoding, made once, by the first reader
// that asks, and shared by every reader after: a hundred streams replaying
// the window send the same bytes rather than a hundred copies of them
// (BenchmarkEventFanOut, server; docs/benchmarks.md).
type EventJSON struct {
	ev   *api.Event
	once sync.Once
	data []byte
}

// Bytes returns the event's JSON (one line: encoding/json escapes
// newlines in strings). The slice is shared: never modify it.
func (j *EventJSON) Bytes() []byte {
	j.once.Do(func() {
		data, err := json.Marshal(j.ev)
		if err != nil { // an api.Event always marshals; keep readers going
			data = []byte("{}")
		}
		j.data = data
	})
	return j.data
}

// Batch is what one read of an Log returns.
type Batch struct {
	// Events are the events read, oldest first.
	Events []api.Event
	// JSON holds each event's shared encoding, in the same order.
	JSON []*EventJSON
	// Next is the cursor to read from next: the last id looked at, which
	// may be past the last event returned when a filter skipped some.
	Next int64
	// Missed counts events after the cursor that already left the window.
	Missed int64
	// Wake is closed when there may be more to read.
	Wake <-chan struct{}
	// Closed reports the log has ended; nothing more will come.
	Closed bool
}

// New keeps the last size events of a session, and of those no
// more than about maxBytes (counted by eventSize; 0 means no byte bound):
// a window of large chunks and results holds fewer events.
func New(sessionID string, size, maxBytes int) *Log {
	if size < 1 {
		size = 1
	}
	return &Log{sessionID: sessionID, size: size, max: maxBytes,
		nextID: 1, wakeMessage: map[string]chan struct{}{}}
}

// minRing is the first allocation of a ring that grows: a one-call
// message logs four events, and a thousand idle sessions hold their
// rings (BenchmarkManySessionsMemory).
const minRing = 8

// growLocked makes room for one more event below the bound: the ring
// doubles (up to size), its events laid out again from index 0.
func (l *Log) growLocked() {
	if l.count < len(l.ring) || len(l.ring) >= l.size {
		return
	}
	grown := make([]slot, min(l.size, max(minRing, 2*len(l.ring))))
	for i := range l.count {
		grown[i] = l.ring[(l.start+i)%len(l.ring)]
	}
	l.ring, l.start = grown, 0
}

// Append stamps ev with the next id, the session and the time, and keeps
// it, dropping the oldest event when the window is full.
func (l *Log) Append(ev api.Event) api.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ev
	}
	le := &loggedEvent{ev: ev}
	return l.keepLocked(le)
}

// AppendCall is Append for an event about one call, ev.Call set to
// rec: the record is copied into the event's own allocation, not into
// one of its own that the caller made for the event (tool.queued and
// tool.started, a record's copy each; BenchmarkAppendCall). rec is not
// kept, nor the event returned: either would move the caller's record
// to the heap again.
func (l *Log) AppendCall(ev api.Event, rec *api.CallRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	lc := &loggedCallEvent{loggedEvent: loggedEvent{ev: ev}, call: *rec}
	lc.ev.Call = &lc.call
	l.keepLocked(&lc.loggedEvent)
}

// loggedCallEvent is a call's event and the record it points to, in one
// allocation (AppendCall). Only events about calls pay for the record's
// room.
type loggedCallEvent struct {
	loggedEvent
	call api.CallRecord
}

// keepLocked stamps le's event with the next id, the session and the
// time, and keeps it, dropping the oldest event when the window is full.
func (l *Log) keepLocked(le *loggedEvent) api.Event {
	ev := &le.ev
	ev.ID = l.nextID
	l.nextID++
	ev.SessionID = l.sessionID
	ev.Time = time.Now().UTC()
	size := eventSize(ev)
	for l.count == l.size || l.count > 0 && l.max > 0 && l.bytes+size > l.max {
		l.dropOldestLocked()
	}
	l.growLocked()
	i := (l.start + l.count) % len(l.ring)
	le.json.ev = ev
	l.ring[i] = slot{ev: le, size: size}
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
	return *ev
}

// dropOldestLocked forgets the oldest event; readers behind it see it in
// Missed.
func (l *Log) dropOldestLocked() {
	l.bytes -= l.ring[l.start].size
	l.ring[l.start] = slot{} // release what it held (readers may still share it)
	l.start = (l.start + 1) % len(l.ring)
	l.count--
}

// Read returns up to limit events with ids after the cursor.
func (l *Log) Read(after int64, limit int) Batch {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.readLocked(after, limit, nil)
	if b.Wake == nil {
		if l.wakeAll == nil {
			l.wakeAll = make(chan struct{})
		}
		b.Wake = l.wakeAll
	}
	return b
}

// ReadMessage returns up to limit events of one message with ids after
// the cursor; its Wake channel closes only for that message's events.
func (l *Log) ReadMessage(messageID string, after int64, limit int) Batch {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.readLocked(after, limit, func(ev *api.Event) bool { return ev.MessageID == messageID })
	if b.Wake == nil {
		ch, ok := l.wakeMessage[messageID]
		if !ok {
			l.boundMessageWaits()
			ch = make(chan struct{})
			l.wakeMessage[messageID] = ch
		}
		b.Wake = ch
	}
	return b
}

// maxMessageWaits bounds the message channels kept at once: a reader that
// leaves before its message's next event leaves its channel behind.
const maxMessageWaits = 1024

// boundMessageWaits wakes every message reader when the table is full.
// A reader woken early only reads nothing and waits again.
func (l *Log) boundMessageWaits() {
	if len(l.wakeMessage) < maxMessageWaits {
		return
	}
	for id, ch := range l.wakeMessage {
		close(ch)
		delete(l.wakeMessage, id)
	}
}

// closedChan is the wake channel of an ended log.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// readLocked scans the window after the cursor, keeping the events keep
// selects (all when nil). Wake is set only when the log has ended.
func (l *Log) readLocked(after int64, limit int, keep func(*api.Event) bool) Batch {
	// The events are copied (their strings are shared, not copied); the
	// JSON travels as a pointer, so the first reader to encode an event
	// encodes it for all.
	after = max(after, 0)
	b := Batch{Closed: l.closed}
	oldest := l.nextID - int64(l.count)
	if after+1 < oldest {
		b.Missed = oldest - after - 1
		after = oldest - 1
	}
	id := after + 1
	for ; id < l.nextID && len(b.Events) < limit; id++ {
		le := l.ring[(l.start+int(id-oldest))%len(l.ring)].ev
		if keep == nil || keep(&le.ev) {
			b.Events = append(b.Events, le.ev)
			b.JSON = append(b.JSON, &le.json)
		}
	}
	b.Next = id - 1
	if l.closed {
		b.Wake = closedChan
	}
	return b
}

// Cursor turns a client's Last-Event-ID into a safe cursor: negative ids
// mean the start, ids ahead of the log (from before a restart, or made up)
// mean "from now on" — except in the log of a session restored after a
// restart, where they mean the start: that log opens with the calls the
// restart brought back (approvals asked again), which a client resuming
// from its last id before the restart must see.
func (l *Log) Cursor(lastEventID int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.restored && lastEventID > l.nextID-1 {
		return 0
	}
	return min(max(lastEventID, 0), l.nextID-1)
}

// MarkRestored notes that the log's session came back after a restart.
func (l *Log) MarkRestored() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.restored = true
}

// LastID is the id of the newest event, 0 before any.
func (l *Log) LastID() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nextID - 1
}

// Close ends the log: readers see closed once they have read everything.
func (l *Log) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	if l.wakeAll != nil {
		close(l.wakeAll)
		l.wakeAll = nil
	}
	for id, ch := range l.wakeMessage {
		close(ch)
		delete(l.wakeMessage, id)
	}
}
