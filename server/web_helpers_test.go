package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/launch"
)

// webEnv is a real server (real coordinator, default tools, a temporary
// workspace) on a loopback port, as a browser would reach it.
type webEnv struct {
	URL  string
	Port int
	Dir  string
	logs *launch.LogBuffer
	// srv is the server, for tests that cut its connections.
	srv *httptest.Server
}

// newWebEnv starts a server; edit may change its config first. files are
// written into the workspace.
func newWebEnv(t *testing.T, edit func(*Config), files map[string]string) *webEnv {
	t.Helper()
	logs := &launch.LogBuffer{}
	registerConsoleDecoders()
	f := newFixture(t, fixtureOptions{files: files, config: coordinator.DefaultConfig(),
		logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		before: func(_ string, port int, _ *coordinator.Config, s *Config) {
			*s = Config{Token: testToken, Port: port, SSEHeartbeat: time.Hour}
			if edit != nil {
				edit(s)
			}
		}})
	return &webEnv{URL: "http://127.0.0.1:" + strconv.Itoa(f.port), Port: f.port, Dir: f.dir, logs: logs, srv: f.ts}
}

// registerConsoleDecoders teaches the contract checker the console's
// content types, OpenMetrics and the audit export's, which it cannot
// decode by itself.
var registerConsoleDecoders = sync.OnceFunc(func() {
	for _, ct := range []string{"text/html", "text/css", "text/javascript", "application/openmetrics-text", "application/x-ndjson", "text/csv"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
})

// do sends one request with the given headers ("Host" sets the Host).
func (e *webEnv) do(t *testing.T, method, path, body string, headers map[string]string) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, method, e.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func auth(extra map[string]string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + testToken}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
