package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	fastjson "github.com/segmentio/encoding/json"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkFront measures the one-layer front against the same steps as
// separate middlewares, as they were before it (chi's RequestID, then the
// request log, the metrics, the recovery, the body deadline, the
// Host/Origin check and CORS, each its own layer), in front of a route
// answering a small JSON body; the request log at info level to a
// discarded output ("log") or off ("quiet": the layers alone). ratio is
// front's time over the layered stack's.
func BenchmarkFront(b *testing.B) {
	b.Run("log", func(b *testing.B) { benchFront(b, slog.LevelInfo) })
	b.Run("quiet", func(b *testing.B) { benchFront(b, slog.LevelWarn) })
}

func benchFront(b *testing.B, level slog.Level) {
	s := &Server{
		logger:  slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: level})),
		metrics: newHTTPMetrics(prometheus.NewRegistry(), "bench"),
		cfg:     Config{ReadTimeout: coordinator.Duration(time.Minute)},
	}
	route := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}
	front, layered := chi.NewRouter(), chi.NewRouter()
	front.Use(s.front)
	layered.Use(middleware.RequestID, s.layeredLog, s.layeredMetrics, s.layeredRecover, s.layeredGuards)
	front.Post("/v1/tool_use", route)
	layered.Post("/v1/tool_use", route)
	serve := func(h http.Handler) func() {
		return func() {
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7420/v1/tool_use", strings.NewReader(`{}`))
			h.ServeHTTP(httptest.NewRecorder(), r)
		}
	}
	benchpair.Run(b, serve(front), serve(layered))
}

// layeredLog is the request log as its own layer.
func (s *Server) layeredLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		r = r.WithContext(coordinator.WithRequestID(r.Context(), middleware.GetReqID(r.Context())))
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		if s.logger.Enabled(context.Background(), slog.LevelInfo) {
			logFrom(r, s.logger).Info("http request", "method", r.Method, "path", r.URL.Path, "route", routePattern(r),
				"status", ww.Status(), "bytes", ww.BytesWritten(), "duration_ms", float64(time.Since(start).Microseconds())/1000)
		}
	})
}

// layeredMetrics counts and times requests as its own layer.
func (s *Server) layeredMetrics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww, ok := w.(middleware.WrapResponseWriter)
		if !ok {
			ww = middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		}
		next.ServeHTTP(ww, r)
		s.metrics.requests.WithLabelValues(routePattern(r), r.Method, "200").Inc()
		s.metrics.duration.WithLabelValues(routePattern(r)).Observe(time.Since(start).Seconds())
	})
}

// layeredRecover is the recovery as its own layer.
func (s *Server) layeredRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				s.metrics.panics.Inc()
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// layeredGuards are the body deadline, the Host/Origin check and CORS,
// each its own layer.
func (s *Server) layeredGuards(next http.Handler) http.Handler {
	cors := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serveCORS(w, r, next) })
	hosts := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.hostAndOriginAllowed(w, r) {
			cors.ServeHTTP(w, r)
		}
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.setBodyDeadline(w, r)
		hosts.ServeHTTP(w, r)
	})
}

// BenchmarkEncodeBuffers measures encoding a small answer into a buffer
// and encoder from the server's pool (encodeBufs) against a fresh buffer
// and encoder per answer.
func BenchmarkEncodeBuffers(b *testing.B) {
	s := &Server{logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}
	v := map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "content": strings.Repeat("x", 1300)}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	benchpair.Run(b, func() { s.encode(httptest.NewRecorder(), r, http.StatusOK, v) }, func() {
		var buf bytes.Buffer
		_ = json.NewEncoder(&buf).Encode(v)
		w := httptest.NewRecorder()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(buf.Bytes())
	})
}

// BenchmarkEncodeAnswer measures encoding a call's answer (read_file's
// numbered text of a 1 KB file and the call record) with encode's
// appendAnswer against encoding/json's Encoder (vs=encoding-json) and
// against segmentio's (vs=segmentio), which encode used before.
func BenchmarkEncodeAnswer(b *testing.B) {
	var text strings.Builder
	for i := range 64 {
		fmt.Fprintf(&text, "%3d | 0123456789abcde\n", i+1)
	}
	at := time.Now().UTC()
	v := api.ToolUseResponse{Result: api.NewToolResult("toolu_0123456789", text.String(), false),
		Call: api.CallRecord{ToolUseID: "toolu_0123456789", Name: "read_file", State: api.StateDone, Status: api.StatusSucceeded, StartedAt: &at, DurationMS: 0.412}}
	eb := newEncodeBuffer()
	var plain bytes.Buffer
	for _, other := range []struct {
		name string
		enc  interface{ Encode(any) error }
	}{{"encoding-json", json.NewEncoder(&plain)}, {"segmentio", fastjson.NewEncoder(&plain)}} {
		b.Run("vs="+other.name, func(b *testing.B) {
			benchpair.Run(b, func() {
				eb.buf.Reset()
				_ = eb.encode(v)
			}, func() {
				plain.Reset()
				_ = other.enc.Encode(v)
			})
		})
	}
}

// BenchmarkDecodeBody measures decode (a pooled body buffer, segmentio's
// decoder, encoding/json only for what it refuses) against encoding/json's
// decoder over the capped body, as decode was before, on a read_file
// tool_use block.
func BenchmarkDecodeBody(b *testing.B) {
	s := &Server{cfg: Config{MaxBodyBytes: 16 << 20}}
	body := `{"type":"tool_use","id":"toolu_0123456789","name":"read_file","input":{"path":"src/one_kb.txt"}}`
	r := httptest.NewRequest(http.MethodPost, "/v1/tool_use", nil)
	r.ContentLength = int64(len(body))
	request := func() *http.Request {
		r.Body = io.NopCloser(strings.NewReader(body))
		return r
	}
	w := httptest.NewRecorder()
	benchpair.Run(b, func() {
		var use api.ToolUse
		if err := s.decode(w, request(), &use); err != nil {
			b.Fatal(err)
		}
	}, func() {
		var use api.ToolUse
		dec := json.NewDecoder(http.MaxBytesReader(w, io.NopCloser(request().Body), s.cfg.MaxBodyBytes))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&use); err != nil {
			b.Fatal(err)
		}
		if err := endOfBody(dec); err != nil {
			b.Fatal(err)
		}
	})
}
