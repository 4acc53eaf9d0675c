package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/launch"
)

// heldLog holds every request log line until released: the other lines
// pass.
type heldLog struct {
	release chan struct{}
	held    chan struct{} // closed at the first line held
	out     launch.LogBuffer
}

func (h *heldLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"msg":"http request"`)) {
		select {
		case <-h.held:
		default:
			close(h.held)
		}
		<-h.release
	}
	return h.out.Write(p)
}

// TestAnswerBeforeLogLine: a call's answer reaches its client before the
// request's log line is written, so a log that is slow to take lines
// (here: one that takes none until released) holds no answer back. The
// line is still written, once the log takes it.
func TestAnswerBeforeLogLine(t *testing.T) {
	logs := &heldLog{release: make(chan struct{}), held: make(chan struct{})}
	f := newFixture(t, fixtureOptions{tools: testTools(), server: Config{Token: testToken},
		logger: slog.New(slog.NewJSONHandler(logs, nil)),
		config: coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	released := false
	release := func() {
		if !released {
			released = true
			close(logs.release)
		}
	}
	defer release() // the server's close waits for the handler

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req := ts.request(t, http.MethodPost, "/v1/tool_use", toolUse("toolu_first", "echo", map[string]any{"text": "a"}), "X-Request-Id", "answered-first")
	resp, err := ts.Client().Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("no answer while the log line waited: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(string(api.StatusSucceeded))) {
		t.Fatalf("answer = %d %s (%v), want 200 and the call's result", resp.StatusCode, body, err)
	}
	select {
	case <-logs.held:
	case <-ctx.Done():
		t.Fatal("the request's log line was never written")
	}
	release()
	for !bytes.Contains([]byte(logs.out.String()), []byte(`"request_id":"answered-first"`)) {
		if ctx.Err() != nil {
			t.Fatalf("the request's line never reached the log: %s", logs.out.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkAnswerFirst: the round trip of a 2 KB JSON answer through the
// front on loopback, the request's log line (JSON, to a file) made and
// written after the answer is sent (fast) or before, as net/http sends
// an answer only once the handler returns (plain). ratio is fast's
// round trip over plain's.
func BenchmarkAnswerFirst(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	s := &Server{
		logger:  slog.New(slog.NewJSONHandler(f, nil)),
		metrics: newHTTPMetrics(prometheus.NewRegistry(), "bench"),
		cfg:     Config{ReadTimeout: coordinator.Duration(time.Minute)},
	}
	answer := []byte(`{"result":"` + strings.Repeat("0123456789abcde ", 128) + `"}` + "\n")
	route := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		_, _ = w.Write(answer)
	}
	call := func(h func(http.Handler) http.Handler) func() {
		mux := chi.NewRouter()
		mux.Use(h)
		mux.Post("/v1/tool_use", route)
		ts := httptest.NewServer(mux)
		b.Cleanup(ts.Close)
		client := ts.Client()
		return func() {
			resp, err := client.Post(ts.URL+"/v1/tool_use", "application/json", strings.NewReader(`{"type":"tool_use"}`))
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	benchpair.Run(b, call(s.front), call(s.frontLogFirst))
}

// frontLogFirst is front as it was before sendAnswer: the log line made
// and written before net/http sends the answer.
func (s *Server) frontLogFirst(next http.Handler) http.Handler {
	next = s.traceContext(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := newRequestID()
		r = r.WithContext(coordinator.WithRequestID(context.WithValue(r.Context(), middleware.RequestIDKey, id), id))
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		s.guarded(ww, r, next)
		route := routePattern(r)
		s.count(ww, r, route, start)
		s.logRequest(r, id, route, ww.Status(), ww.BytesWritten(), start)
	})
}
