package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/r3labs/sse/v2"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/eventlog"
)

// This is the only file that knows r3labs/sse, and it uses the library's
// API only: the library writes every frame of every stream, the replay of
// the window included. Its traps decide the shape: its own replay log
// never shrinks, and one slow subscriber blocks the publisher of its
// stream. So its replay is off; the session's bounded event log (eventlog.Log) is the
// source of truth; every connection gets a stream of its own fed by a pump
// that reads the log with a cursor and publishes into the stream (so a
// slow reader only slows itself, and Last-Event-ID replay is exact).
//
// Memory per connection stays small whatever the window holds: each event
// is encoded once, in the log, and every stream publishes those shared
// bytes. The library queues pointers to them, a bounded number per
// connection (streamBuffer, plus its own 64 per subscriber), and the pump
// waits when the queue is full. A reader that takes nothing for the stall
// timeout is dropped: every write has that deadline.
//
// The library formats each frame with fmt.Fprintf, which copies the data
// into fmt's buffer and does not keep that buffer for reuse above 64 KiB:
// a replay of large events makes short-lived garbage per reader. For 150
// readers replaying an 8 MiB window of 64 KiB events, BenchmarkEventFanOut
// measured a peak heap 59-100 MB over the filled window (16-22 MB when
// this file wrote the replay frames itself), and unchanged held memory
// (about 14 MB). Nothing in the library's API avoids that copy: the
// writer only ever sees fmt's buffer. Writing the frames here instead
// would take the streaming away from the library.

// streamBuffer is the library's per-stream event buffer (BufferSize).
const streamBuffer = 16

// eventStreams serves session events over SSE.
type eventStreams struct {
	srv         *sse.Server
	stall       time.Duration
	heartbeat   time.Duration
	subscribers prometheus.Gauge
	dropped     prometheus.Counter
	logger      *slog.Logger
	next        atomic.Int64
	// lifecycles holds each open stream's *streamLifecycle by stream id.
	lifecycles sync.Map
}

// streamLifecycle follows the library's subscriber of one stream through
// its callbacks.
type streamLifecycle struct {
	subscribed   chan struct{} // closed when the subscriber is registered
	unsubscribed chan struct{} // closed when it is deregistered
}

func newEventStreams(stall, heartbeat time.Duration, subscribers prometheus.Gauge, dropped prometheus.Counter, logger *slog.Logger) *eventStreams {
	es := &eventStreams{stall: stall, heartbeat: heartbeat, subscribers: subscribers, dropped: dropped, logger: logger}
	srv := sse.NewWithCallback(es.onSubscribe, es.onUnsubscribe)
	srv.AutoReplay = false
	srv.AutoStream = false
	srv.BufferSize = streamBuffer
	// Proxies such as nginx must not buffer the stream.
	srv.Headers = map[string]string{"X-Accel-Buffering": "no"}
	es.srv = srv
	return es
}

func (es *eventStreams) onSubscribe(streamID string, _ *sse.Subscriber) {
	if lc, ok := es.lifecycles.Load(streamID); ok {
		close(lc.(*streamLifecycle).subscribed)
	}
}

func (es *eventStreams) onUnsubscribe(streamID string, _ *sse.Subscriber) {
	if lc, ok := es.lifecycles.Load(streamID); ok {
		close(lc.(*streamLifecycle).unsubscribed)
	}
}

// streamSpec says which events of a log one connection gets.
type streamSpec struct {
	log   *eventlog.Log
	after int64
	// messageID keeps only that message's events; empty keeps all.
	messageID string
	// last reports the event after which the stream ends; nil streams
	// until the client leaves or the log closes.
	last func(api.Event) bool
	// done ends the stream early (session deleted, server stopping).
	done <-chan struct{}
	// sent, when set, is told the id of each event once it was written
	// and flushed to the connection.
	sent func(id int64)
	// noFollow ends the stream once it has sent the events the log held
	// when the request came (until, set by serve), instead of waiting for
	// more: the window as a finite response.
	noFollow bool
	until    int64
}

// read takes the next batch of the connection's events after the cursor.
func (spec streamSpec) read(cursor int64) eventlog.Batch {
	const batch = 64
	if spec.messageID != "" {
		return spec.log.ReadMessage(spec.messageID, cursor, batch)
	}
	return spec.log.Read(cursor, batch)
}

// serve streams events to one client until it leaves, stalls past the
// stall timeout, the last event is written, or the log ends.
func (es *eventStreams) serve(w http.ResponseWriter, r *http.Request, spec streamSpec) {
	id := "c" + strconv.FormatInt(es.next.Add(1), 10)
	lc := &streamLifecycle{subscribed: make(chan struct{}), unsubscribed: make(chan struct{})}
	es.subscribers.Inc()
	defer es.subscribers.Dec()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	dw := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: es.stall}
	dw.onFail = func(err error) {
		cancel()
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return // the client left
		}
		es.dropped.Inc()
		es.logger.Warn("event stream dropped: the client took nothing for the stall timeout",
			"stall_timeout", es.stall.String(), "path", r.URL.Path, "remote", r.RemoteAddr)
	}
	// The cursor is taken now, before the client can see the response
	// begin: "from now on" (an id ahead of the log) then includes every
	// event the client may cause once it has its 200.
	spec.after = spec.log.Cursor(spec.after)
	if spec.noFollow {
		spec.until = spec.log.LastID()
	}
	var handed *deliveries
	if spec.sent != nil {
		handed = &deliveries{sent: spec.sent}
		dw.flushed = handed.flushed
	}

	es.lifecycles.Store(id, lc)
	defer es.lifecycles.Delete(id)
	es.srv.CreateStream(id)
	defer func() {
		// The library deregisters the subscriber once the request's context
		// ends; the stream must outlive that, or the deregistration would
		// wait forever on the stream's stopped goroutine.
		cancel()
		select {
		case <-lc.subscribed:
			<-lc.unsubscribed
		default:
		}
		es.srv.RemoveStream(id)
	}()
	go es.pump(ctx, id, spec, handed, lc.subscribed)

	// The library picks the stream from the query and parses Last-Event-ID
	// itself (trusting negative numbers); hand it only what it needs.
	req := r.Clone(ctx)
	req.Header.Del("Last-Event-ID")
	req.URL.RawQuery = "stream=" + id
	es.srv.ServeHTTP(dw, req)
}

// deliveries tells which event the library has written to the connection,
// for a ticket's resume point (tickets.go). The library's API has no way
// to say so: Publish returns once the stream's goroutine has the event,
// before it is written, and ServeHTTP reports nothing per event. What it
// does is flush once after the response header and once after each frame,
// in the order the events were published (r3labs/sse v2.10.0 http.go,
// pinned in go.mod). So the connection's writer, which gives every flush
// its deadline anyway, reports each successful flush here, and the ids the
// pump published are matched to them in order. Nothing here writes or
// reads the frames.
type deliveries struct {
	sent func(id int64)

	mu     sync.Mutex
	header bool    // the header's flush was seen
	queue  []int64 // ids handed over and not yet flushed; 0 for comments
}

// hand records a frame given to the library; id is its event id, 0 for a
// comment.
func (d *deliveries) hand(id int64) {
	d.mu.Lock()
	d.queue = append(d.queue, id)
	d.mu.Unlock()
}

// flushed is called after each successful flush of the library.
func (d *deliveries) flushed() {
	d.mu.Lock()
	if !d.header {
		d.header = true
		d.mu.Unlock()
		return
	}
	var id int64
	if len(d.queue) > 0 {
		id, d.queue = d.queue[0], d.queue[1:]
	}
	d.mu.Unlock()
	if id > 0 {
		d.sent(id)
	}
}

// endOfStream makes the library's subscriber loop return once it has
// written everything queued before it: it ends on an event with neither
// data nor comment. Ending by cancelling the request instead could lose
// the last events, which the library may still hold in its stream buffer.
var endOfStream = &sse.Event{}

// pump copies events from the log into the connection's stream. Unless
// the client is gone, it ends the stream with endOfStream.
func (es *eventStreams) pump(ctx context.Context, streamID string, spec streamSpec, handed *deliveries, subscribed <-chan struct{}) {
	// Events published before the library registered the subscriber would
	// be lost.
	select {
	case <-subscribed:
	case <-ctx.Done():
		return
	}
	publish := func(ev *sse.Event, id int64) bool {
		if handed != nil && ev != endOfStream {
			handed.hand(id)
		}
		es.srv.Publish(streamID, ev) // waits while the connection's queue is full
		return ctx.Err() == nil
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
		if b.Missed > 0 && !publish(&sse.Event{Comment: fmt.Appendf(nil, "%d earlier events are no longer kept", b.Missed)}, 0) {
			return
		}
		cursor = b.Next
		for i, ev := range b.Events {
			msg := &sse.Event{ID: strconv.AppendInt(nil, ev.ID, 10), Event: []byte(ev.Type), Data: b.JSON[i].Bytes()}
			if !publish(msg, ev.ID) {
				return
			}
			if spec.last != nil && spec.last(ev) {
				publish(endOfStream, 0)
				return
			}
		}
		if spec.noFollow && cursor >= spec.until {
			publish(endOfStream, 0)
			return
		}
		if len(b.Events) > 0 {
			continue
		}
		if b.Closed {
			publish(endOfStream, 0)
			return
		}
		select {
		case <-b.Wake:
		case <-beat:
			if !publish(&sse.Event{Comment: []byte("keep-alive")}, 0) {
				return
			}
		case <-spec.done:
			publish(endOfStream, 0)
			return
		case <-ctx.Done():
			return
		}
	}
}

// deadlineWriter gives every write and flush a deadline. A reader that
// takes nothing for that long is dropped: at the first failed write onFail
// cancels the request's context, which makes the library unsubscribe it,
// and later writes fail at once so nothing upstream waits on it.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	onFail  func(error)

	mu     sync.Mutex
	failed bool
	// flushed, when set, runs after each successful flush; it is set
	// before the library writes anything.
	flushed func()
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failed {
		return 0, http.ErrHandlerTimeout
	}
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	n, err := d.ResponseWriter.Write(p)
	if err != nil {
		d.failLocked(err)
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
		d.failLocked(err)
		return
	}
	if d.flushed != nil {
		d.flushed()
	}
}

func (d *deadlineWriter) failLocked(err error) {
	d.failed = true
	d.onFail(err)
}

// Unwrap lets http.ResponseController reach the real writer.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
