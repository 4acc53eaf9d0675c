package coordinator

import (
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
)

// EventLog is a session's bounded window of recent events. Appending never
// blocks: readers follow with a cursor (the last id they saw) and wait on a
// channel that is closed at the next append, so a slow reader costs the
// writer nothing and memory stays bounded by the window size.
type EventLog struct {
	sessionID string

	mu     sync.Mutex
	ring   []api.Event
	start  int // index of the oldest event in ring
	count  int
	nextID int64
	wake   chan struct{}
	closed bool
}

// NewEventLog keeps the last size events of a session.
func NewEventLog(sessionID string, size int) *EventLog {
	if size < 1 {
		size = 1
	}
	return &EventLog{sessionID: sessionID, ring: make([]api.Event, size), nextID: 1, wake: make(chan struct{})}
}

// Append stamps ev with the next id, the session and the time, and keeps
// it, dropping the oldest event when the window is full.
func (l *EventLog) Append(ev api.Event) api.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ev
	}
	ev.ID = l.nextID
	l.nextID++
	ev.SessionID = l.sessionID
	ev.Time = time.Now().UTC()
	i := (l.start + l.count) % len(l.ring)
	l.ring[i] = ev
	if l.count < len(l.ring) {
		l.count++
	} else {
		l.start = (l.start + 1) % len(l.ring)
	}
	close(l.wake)
	l.wake = make(chan struct{})
	return ev
}

// Read returns up to limit events with ids after the cursor, oldest first.
// missed counts events after the cursor that already left the window.
// wake is closed at the next append; closed reports the log has ended.
func (l *EventLog) Read(after int64, limit int) (evs []api.Event, missed int64, wake <-chan struct{}, closed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	after = max(after, 0)
	oldest := l.nextID - int64(l.count)
	if after+1 < oldest {
		missed = oldest - after - 1
		after = oldest - 1
	}
	for id := after + 1; id < l.nextID && len(evs) < limit; id++ {
		evs = append(evs, l.ring[(l.start+int(id-oldest))%len(l.ring)])
	}
	return evs, missed, l.wake, l.closed
}

// Cursor turns a client's Last-Event-ID into a safe cursor: negative ids
// mean the start, ids ahead of the log (from before a restart, or made up)
// mean "from now on".
func (l *EventLog) Cursor(lastEventID int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return min(max(lastEventID, 0), l.nextID-1)
}

// LastID is the id of the newest event, 0 before any.
func (l *EventLog) LastID() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nextID - 1
}

// Close ends the log: readers see closed once they have read everything.
func (l *EventLog) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.wake)
	}
}
