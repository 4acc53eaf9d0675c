package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/handlers"
)

// webEnv is a real server (real coordinator, default tools, a temporary
// workspace) on a loopback port, as a browser would reach it.
type webEnv struct {
	URL  string
	Port int
	Dir  string
	logs *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newWebEnv starts a server; edit may change its config first. files are
// written into the workspace.
func newWebEnv(t *testing.T, edit func(*Config), files map[string]string) *webEnv {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := coordinator.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	reg := prometheus.NewRegistry()
	coord := coordinator.New(coordinator.Options{
		Config: coordinator.DefaultConfig(), Workspace: ws, Tools: handlers.Default(), Logger: logger, Registerer: reg,
	})
	hs := httptest.NewUnstartedServer(nil)
	port := hs.Listener.Addr().(*net.TCPAddr).Port
	cfg := Config{Token: testToken, Port: port, SSEHeartbeat: time.Hour}
	if edit != nil {
		edit(&cfg)
	}
	env := &webEnv{URL: "http://127.0.0.1:" + strconv.Itoa(port), Port: port, Dir: dir, logs: logs}
	registerConsoleDecoders()
	_, router := loadSpec(t)
	check := &conformance{router: router, next: New(logger, coord, reg, cfg)}
	hs.Config.Handler = check
	hs.Start()
	t.Cleanup(func() {
		coord.Close()
		hs.Close()
		_ = ws.Close()
		for _, e := range check.errs {
			t.Errorf("openapi.yaml conformance: %s", e)
		}
	})
	return env
}

// registerConsoleDecoders teaches the contract checker the console's
// content types, which it cannot decode by itself.
var registerConsoleDecoders = sync.OnceFunc(func() {
	for _, ct := range []string{"text/html", "text/css", "text/javascript"} {
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
	resp, err := http.DefaultClient.Do(req)
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
