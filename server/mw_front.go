package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/randid"
)

// front is what every request passes through before its route, as one
// layer: the request id (the client's X-Request-Id or a new one), put in
// the request's context once for the log lines of the request and of the
// calls it brings; then, inside the log line and the metrics so that a
// panic is logged under the request's id and counted, the recovery, the
// body read deadline, the Host/Origin check, CORS and the trace context.
// One layer instead of eight: each of them copied the request or wrapped
// the writer again, a few microseconds of a small call. Speed only:
// BenchmarkFront (./server/, docs/benchmarks.md).
func (s *Server) front(next http.Handler) http.Handler {
	next = s.traceContext(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(middleware.RequestIDHeader)
		if id == "" {
			id = newRequestID()
		}
		// What the request's calls close once its answer is sent: run
		// right after it, and when the handler returns (a panic).
		ctx, after := tool.WithAfterAnswer(coordinator.WithRequestIDAlso(r.Context(), id, middleware.RequestIDKey))
		defer after.Run()
		r = r.WithContext(ctx)
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		s.guarded(ww, r, next)
		route := s.routeNames.of(r)
		s.count(ww, r, route, start)
		sendAnswer(ww)
		after.Run()
		s.logRequest(r, id, route, ww.Status(), ww.BytesWritten(), start)
	})
}

// sendAnswer sends a whole answer (its length declared, so it is all
// written) to the client before the request's log line is made and
// written: net/http would send it only once the handler returns, and the
// line is a few microseconds of every call's latency that the client
// need not wait for. Speed only: BenchmarkToolUseVsBare (./cmd/toolgate/,
// docs/benchmarks.md). An answer without a length (an event stream, a
// handler that wrote nothing) is left to net/http.
func sendAnswer(ww middleware.WrapResponseWriter) {
	if ww.Status() == 0 || ww.Header().Get("Content-Length") == "" {
		return
	}
	if f, ok := ww.(http.Flusher); ok {
		f.Flush()
	}
}

// guarded runs next behind the recovery, the body deadline, the
// Host/Origin check and CORS, in that order.
func (s *Server) guarded(w http.ResponseWriter, r *http.Request, next http.Handler) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if p == http.ErrAbortHandler { // net/http's way to abort a response: not a bug
			panic(p)
		}
		s.metrics.panics.Inc()
		logFrom(r, s.logger).Error("handler panicked", "route", routePattern(r), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		s.writeError(w, r, errorf(api.CodeInternal, "internal error"))
	}()
	s.setBodyDeadline(w, r)
	if !s.hostAndOriginAllowed(w, r) {
		return
	}
	s.serveCORS(w, r, next)
}

// count counts the request and times it, before its answer is sent:
// a scrape that follows an answer sees it counted.
func (s *Server) count(ww middleware.WrapResponseWriter, r *http.Request, route string, start time.Time) {
	status := ww.Status()
	if status == 0 {
		status = http.StatusOK
	}
	// An event stream lasts as long as its client listens: its length
	// would swamp the latency of every other answer.
	timed := !strings.HasPrefix(ww.Header().Get("Content-Type"), "text/event-stream")
	series := s.metrics.seriesFor(route, r.Method, status, timed)
	series.requests.Inc()
	if timed {
		series.duration.Observe(time.Since(start).Seconds())
	}
}

// logRequest writes a request's line. Its attributes go into a record
// made here, the request id first as logFrom's logger puts it, handed to
// the logger's handler: the same line as logFrom(r, s.logger).Log(...)
// writes, without a logger made for the request, a value boxed, or the
// caller's program counter, which Logger.LogAttrs takes with
// runtime.Callers for a source line no handler here writes (AddSource is
// never set). A handler that writes the line itself (a
// RequestLineHandler) is given the line's fields instead. Speed only:
// BenchmarkRequestLogLine (./server/, docs/benchmarks.md);
// TestRequestLogLineUnchanged holds the line to logFrom's.
func (s *Server) logRequest(r *http.Request, id, route string, status, bytes int, start time.Time) {
	level := requestLogLevel(r, status)
	h := s.logger.Handler()
	if !h.Enabled(context.Background(), level) { // as Logger.Log asks
		return
	}
	// The query string is never logged: it may carry a ticket.
	line := RequestLine{Time: time.Now(), Level: level, ID: id, Method: r.Method, Path: r.URL.Path, Route: route,
		Status: status, Bytes: bytes, DurationMS: float64(time.Since(start).Microseconds()) / 1000}
	if lh, ok := h.(RequestLineHandler); ok && lh.HandleRequestLine(line) {
		return
	}
	_ = h.Handle(r.Context(), line.Record()) // as Logger.Log, which drops the handler's error
}

// RequestLine is what a request's log line says.
type RequestLine struct {
	Time                    time.Time
	Level                   slog.Level
	ID, Method, Path, Route string
	Status, Bytes           int
	DurationMS              float64
}

// Record is the line as the record a handler is given: "http request"
// and the attributes request_id, method, path, route, status, bytes and
// duration_ms, in that order.
func (l RequestLine) Record() slog.Record {
	rec := slog.NewRecord(l.Time, l.Level, "http request", 0)
	rec.AddAttrs(slog.String("request_id", l.ID), slog.String("method", l.Method), slog.String("path", l.Path),
		slog.String("route", l.Route), slog.Int("status", l.Status), slog.Int("bytes", l.Bytes),
		slog.Float64("duration_ms", l.DurationMS))
	return rec
}

// RequestLineHandler is a log handler that can write a request's line
// without a record: HandleRequestLine writes the bytes Handle would write
// for the line's Record and reports true, or writes nothing and reports
// false (Handle then writes it). The server's JSON log does, writing the
// line slog's JSONHandler takes several microseconds a request to write.
type RequestLineHandler interface {
	slog.Handler
	HandleRequestLine(RequestLine) bool
}

// PollHeader marks a request the web console sends by itself on a timer
// (the inbox every 3 s, sessions, jobs and figures every 5 s, ...): one
// open tab made about a log line a second, burying the requests a person
// or an agent made.
const PollHeader = "X-Toolgate-Poll"

// requestLogLevel is the level of a request's log line: debug for a
// console poll that read something and succeeded, which says nothing new;
// info for everything else, a poll that failed included (a token
// refused, a session gone, a server error are worth seeing).
func requestLogLevel(r *http.Request, status int) slog.Level {
	if r.Header.Get(PollHeader) != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) && status < http.StatusBadRequest {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// requestIDPrefix starts the ids of requests that bring none, in the shape
// of chi's RequestID middleware: host/random-counter (the random part is
// ten hex digits here, from the one random source).
var requestIDPrefix = func() string {
	host, err := os.Hostname()
	if host == "" || err != nil {
		host = "localhost"
	}
	return host + "/" + randid.Hex(5) + "-"
}()

// newRequestID is the next request id: the prefix and chi's counter, at
// least six digits.
func newRequestID() string {
	n := middleware.NextRequestID()
	b := make([]byte, 0, len(requestIDPrefix)+12)
	b = append(b, requestIDPrefix...)
	for d := uint64(100000); d > 1 && n < d; d /= 10 {
		b = append(b, '0')
	}
	return string(strconv.AppendUint(b, n, 10))
}
