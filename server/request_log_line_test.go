package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// logRequestAsBefore writes a request's line the plain way: a logger
// carrying the request id (logFrom), the attributes as key-value pairs.
func (s *Server) logRequestAsBefore(r *http.Request, route string, status, bytes int, start time.Time) {
	logFrom(r, s.logger).Log(r.Context(), requestLogLevel(r, status), "http request",
		"method", r.Method, "path", r.URL.Path, "route", route,
		"status", status, "bytes", bytes,
		"duration_ms", float64(time.Since(start).Microseconds())/1000)
}

// logRequestWithLogAttrs is logRequest through Logger.LogAttrs, as it was
// written before: BenchmarkRequestLogLine's comparison.
func (s *Server) logRequestWithLogAttrs(r *http.Request, id, route string, status, bytes int, start time.Time) {
	level := requestLogLevel(r, status)
	if !s.logger.Enabled(context.Background(), level) {
		return
	}
	s.logger.LogAttrs(r.Context(), level, "http request",
		slog.String("request_id", id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.String("route", route), slog.Int("status", status), slog.Int("bytes", bytes),
		slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
}

// lineHandler takes a request's line as a RequestLineHandler and writes
// its Record: the line's fields are the record's.
type lineHandler struct{ slog.Handler }

func (h lineHandler) HandleRequestLine(l RequestLine) bool {
	return h.Handle(context.Background(), l.Record()) == nil
}

func requestWithID(id string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7420/v1/tool_use?ticket=secret", nil)
	return r.WithContext(context.WithValue(r.Context(), middleware.RequestIDKey, id))
}

// TestRequestLogLineUnchanged: logRequest writes, byte for byte, the line
// a logger carrying the request id writes, in JSON and in text, whatever
// the base logger already carries, and a RequestLineHandler is given it.
func TestRequestLogLineUnchanged(t *testing.T) {
	timeless := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "duration_ms" {
			return slog.Attr{}
		}
		return a
	}}
	handlers := map[string]func(io.Writer) slog.Handler{
		"json":      func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, timeless) },
		"text":      func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, timeless) },
		"json line": func(w io.Writer) slog.Handler { return lineHandler{slog.NewJSONHandler(w, timeless)} },
		"json with": func(w io.Writer) slog.Handler {
			return slog.NewJSONHandler(w, timeless).WithAttrs([]slog.Attr{slog.String("service", "toolgate")})
		},
	}
	for name, handler := range handlers {
		t.Run(name, func(t *testing.T) {
			var got, want bytes.Buffer
			r := requestWithID("host/abc-000042")
			start := time.Now()
			(&Server{logger: slog.New(handler(&got))}).logRequest(r, "host/abc-000042", "/v1/tool_use", 200, 1234, start)
			(&Server{logger: slog.New(handler(&want))}).logRequestAsBefore(r, "/v1/tool_use", 200, 1234, start)
			if got.String() != want.String() || got.Len() == 0 {
				t.Errorf("line:\n got %s\nwant %s", got.String(), want.String())
			}
		})
	}
}

// BenchmarkRequestLogLine measures a request's log line at info level,
// JSON to a discarded output: logRequest against a logger made for the
// request with the attributes as key-value pairs (vs=logger-per-request,
// logRequestAsBefore) and against Logger.LogAttrs, which takes the
// caller's program counter (vs=logattrs, logRequestWithLogAttrs).
func BenchmarkRequestLogLine(b *testing.B) {
	s := &Server{logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}
	r := requestWithID("host/abc-000042")
	start := time.Now()
	b.Run("vs=logger-per-request", func(b *testing.B) {
		benchpair.Run(b, func() { s.logRequest(r, "host/abc-000042", "/v1/tool_use", 200, 1234, start) },
			func() { s.logRequestAsBefore(r, "/v1/tool_use", 200, 1234, start) })
	})
	b.Run("vs=logattrs", func(b *testing.B) {
		benchpair.Run(b, func() { s.logRequest(r, "host/abc-000042", "/v1/tool_use", 200, 1234, start) },
			func() { s.logRequestWithLogAttrs(r, "host/abc-000042", "/v1/tool_use", 200, 1234, start) })
	})
}
