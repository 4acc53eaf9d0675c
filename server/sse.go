package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/r3labs/sse/v2"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// This is the only file that knows r3labs/sse. Its traps decide the shape:
// its own replay log never shrinks, and one slow subscriber blocks the
// publisher of its stream. So replay is off; the coordinator's bounded
// EventLog is the source of truth; every connection gets a stream of its
// own fed by a pump that reads the log with a cursor (so a slow reader only
// slows itself, and Last-Event-ID replay is exact); and every write has a
// deadline, after which the reader is dropped.

// eventStreams serves session events over SSE.
type eventStreams struct {
	srv          *sse.Server
	writeTimeout time.Duration
	heartbeat    time.Duration
	subscribers  prometheus.Gauge
	next         atomic.Int64
}

func newEventStreams(writeTimeout, heartbeat time.Duration, subscribers prometheus.Gauge) *eventStreams {
	srv := sse.New()
	srv.AutoReplay = false
	srv.AutoStream = false
	srv.BufferSize = 16
	srv.Headers = map[string]string{"X-Accel-Buffering": "no"}
	return &eventStreams{srv: srv, writeTimeout: writeTimeout, heartbeat: heartbeat, subscribers: subscribers}
}

// streamSpec says which events of a log one connection gets.
type streamSpec struct {
	log   *coordinator.EventLog
	after int64
	// messageID keeps only that message's events; empty keeps all.
	messageID string
	// last reports the event after which the stream ends; nil streams
	// until the client leaves or the log closes.
	last func(api.Event) bool
	// done ends the stream early (session deleted, server stopping).
	done <-chan struct{}
}

// read takes the next batch of the connection's events after the cursor.
func (spec streamSpec) read(cursor int64) coordinator.Batch {
	const batch = 64
	if spec.messageID != "" {
		return spec.log.ReadMessage(spec.messageID, cursor, batch)
	}
	return spec.log.Read(cursor, batch)
}

// serve streams events to one client until it leaves, stalls past the write
// deadline, the last event is written, or the log ends.
func (es *eventStreams) serve(w http.ResponseWriter, r *http.Request, spec streamSpec) {
	id := "c" + strconv.FormatInt(es.next.Add(1), 10)
	es.srv.CreateStream(id)
	defer es.srv.RemoveStream(id)
	es.subscribers.Inc()
	defer es.subscribers.Dec()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	dw := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: es.writeTimeout, drop: cancel,
		subscribed: make(chan struct{}), lastSent: make(chan struct{})}
	// The cursor is taken now, before the client can see the response
	// begin: "from now on" (an id ahead of the log) then includes every
	// event the client may cause once it has its 200.
	spec.after = spec.log.Cursor(spec.after)
	go es.pump(ctx, id, spec, dw)

	// The library picks the stream from the query and parses Last-Event-ID
	// itself (trusting negative numbers); hand it only what it needs.
	req := r.Clone(ctx)
	req.Header.Del("Last-Event-ID")
	req.URL.RawQuery = "stream=" + id
	es.srv.ServeHTTP(dw, req)
}

// pump copies events from the log into the connection's stream.
func (es *eventStreams) pump(ctx context.Context, streamID string, spec streamSpec, dw *deadlineWriter) {
	defer dw.drop()
	// Events published before the library registered the subscriber would
	// be lost; it flushes the headers right after registering.
	select {
	case <-dw.subscribed:
	case <-ctx.Done():
		return
	}
	cursor := spec.after
	var beat <-chan time.Time
	if es.heartbeat > 0 {
		t := time.NewTicker(es.heartbeat)
		defer t.Stop()
		beat = t.C
	}
	for {
		b := spec.read(cursor)
		if b.Missed > 0 {
			es.srv.Publish(streamID, &sse.Event{Comment: fmt.Appendf(nil, "%d earlier events are no longer kept", b.Missed)})
		}
		cursor = b.Next
		for _, ev := range b.Events {
			data, err := json.Marshal(ev)
			if err != nil {
				continue
			}
			final := spec.last != nil && spec.last(ev)
			if final {
				dw.expectLast(ev.ID)
			}
			es.srv.Publish(streamID, &sse.Event{ID: []byte(strconv.FormatInt(ev.ID, 10)), Event: []byte(ev.Type), Data: data})
			if final {
				select { // end once the client has the last event
				case <-dw.lastSent:
				case <-ctx.Done():
				}
				return
			}
		}
		if len(b.Events) > 0 {
			continue
		}
		if b.Closed {
			return
		}
		select {
		case <-b.Wake:
		case <-beat:
			es.srv.Publish(streamID, &sse.Event{Comment: []byte("keep-alive")})
		case <-spec.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// deadlineWriter gives every write and flush a deadline. A reader that
// does not take an event in time is dropped: the request's context is
// cancelled, which makes the library unsubscribe it, and later writes fail
// at once so nothing upstream waits on it.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	drop    context.CancelFunc

	mu       sync.Mutex
	failed   bool
	lastID   []byte // id of the event being written
	wantLast []byte // id after whose flush lastSent closes
	lastSent chan struct{}
	sentOnce sync.Once
	// subscribed closes at the first flush, which the library does after
	// registering the subscriber.
	subscribed chan struct{}
	subOnce    sync.Once
}

func (d *deadlineWriter) expectLast(id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.wantLast = []byte(strconv.FormatInt(id, 10))
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failed {
		return 0, http.ErrHandlerTimeout
	}
	if id, ok := bytes.CutPrefix(p, []byte("id: ")); ok {
		// p is the caller's buffer (fmt reuses it): keep a copy.
		d.lastID = bytes.Clone(bytes.TrimSpace(id))
	}
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	n, err := d.ResponseWriter.Write(p)
	if err != nil {
		d.failLocked()
	}
	return n, err
}

func (d *deadlineWriter) Flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failed {
		return
	}
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	if err := d.rc.Flush(); err != nil {
		d.failLocked()
		return
	}
	d.subOnce.Do(func() { close(d.subscribed) })
	if d.wantLast != nil && bytes.Equal(d.lastID, d.wantLast) {
		d.sentOnce.Do(func() { close(d.lastSent) })
	}
}

func (d *deadlineWriter) failLocked() {
	d.failed = true
	d.drop()
}

// Unwrap lets http.ResponseController reach the real writer.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
