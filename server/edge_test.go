package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestHostPorts: loopback names are accepted with any port (a port
// forwarded by docker -p 8080:7420, an SSH tunnel, a local proxy), and
// allowed_hosts entries with a port accept that port only.
func TestHostPorts(t *testing.T) {
	ts := newTestServer(t, func(c *Config) {
		c.Port = 7420
		c.AllowedHosts = []string{"tunnel.example:8443", "Plain.Example"}
	})
	cases := []struct {
		host string
		want int
	}{
		{"127.0.0.1:8080", 200},
		{"localhost:3000", 200},
		{"[::1]:9999", 200},
		{"LOCALHOST:7420", 200},
		{"tunnel.example:8443", 200},
		{"tunnel.example:8444", 403},
		{"tunnel.example", 403},
		{"tunnel.example:7420", 403},
		{"plain.example:7420", 200},
		{"plain.example", 200},
		{"plain.example:9000", 403},
		{"rebind.example:8080", 403},
		{"127.0.0.1.rebind.example:7420", 403},
	}
	for _, c := range cases {
		t.Run(c.host, func(t *testing.T) {
			req := ts.request(t, "GET", "/v1/tools", nil)
			req.Host = c.host
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("Host %s: status = %d, want %d", c.host, resp.StatusCode, c.want)
			}
		})
	}
	t.Run("config check", func(t *testing.T) {
		if err := CheckHosts([]string{"a.example", "b.example:8443", "[::1]:9", "10.0.0.2"}); err != nil {
			t.Errorf("good entries refused: %v", err)
		}
		err := CheckHosts([]string{"http://a.example", "b.example:0", "c.example:x", "*.example", ""})
		for _, bad := range []string{"http://a.example", "b.example:0", "c.example:x", "*.example"} {
			if err == nil || !strings.Contains(err.Error(), bad) {
				t.Errorf("CheckHosts error %v does not name %q", err, bad)
			}
		}
	})
}

// TestBodyReadTimeout: a body that trickles in is cut at read_timeout with
// 408, while a call that runs longer than read_timeout after its body
// arrived is not.
func TestBodyReadTimeout(t *testing.T) {
	const readTimeout = 150 * time.Millisecond
	// Straight to the server: the contract checker in front of the usual
	// test server reads every body whole before passing it on.
	f := newFixture(t, fixtureOptions{tools: testTools()})
	cfg := Config{Token: testToken, ReadTimeout: coordinator.Duration(readTimeout)}
	ts := &testServer{Server: httptest.NewServer(New(discardLogger(), f.coord, prometheus.NewRegistry(), cfg))}
	t.Cleanup(ts.Close)

	t.Run("slow body gets 408", func(t *testing.T) {
		conn, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// The test's own bound: without a body deadline the server would
		// wait for the rest of the body forever.
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		head := "POST /v1/tool_use HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + testToken +
			"\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"type\":"
		if _, err := conn.Write([]byte(head)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to a stalled body: %v", err)
		}
		e := decodeBody[api.ErrorResponse](t, resp, http.StatusRequestTimeout)
		if e.Error == nil || e.Error.Code != api.CodeRequestTimeout {
			t.Errorf("error = %+v, want %s", e.Error, api.CodeRequestTimeout)
		}
	})
	t.Run("long call after the body is not cut", func(t *testing.T) {
		// The message's answer waits on the request's context, which a
		// read deadline left in place would end early.
		msg := assistant(toolUse("rt1", "echo", map[string]any{"text": "late", "delay_ms": 6 * readTimeout.Milliseconds()}))
		got := decodeBody[api.MessageResponse](t, ts.do(t, "POST", "/v1/sessions/default/messages", msg), 200)
		if len(got.Calls) != 1 || got.Calls[0].Status != api.StatusSucceeded {
			t.Errorf("calls = %+v, want one succeeded", got.Calls)
		}
	})
}

// TestPanicLoggedWithRequestID: a route handler's panic is answered with
// 500, logged under the request's id and counted.
func TestPanicLoggedWithRequestID(t *testing.T) {
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	s := &Server{logger: slog.New(slog.NewJSONHandler(&logs, nil)), metrics: newHTTPMetrics(reg, "test")}
	s.cfg.defaults()
	r := chi.NewRouter()
	r.Use(s.middleware()...)
	r.Get("/boom", func(http.ResponseWriter, *http.Request) { panic("kaboom") })

	req := httptest.NewRequest("GET", "/boom", nil)
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)

	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), api.CodeInternal) {
		t.Errorf("answer = %d %s, want 500 internal", rec.Code, rec.Body)
	}
	var panicID, requestID string
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		id, _ := rec["request_id"].(string)
		switch rec["msg"] {
		case "handler panicked":
			panicID = id
			if !strings.Contains(rec["panic"].(string), "kaboom") {
				t.Errorf("panic log = %v, want the panic value", rec)
			}
		case "http request":
			requestID = id
		}
	}
	if panicID == "" || panicID != requestID {
		t.Errorf("panic logged with request_id %q, request with %q; want the same, non-empty\n%s", panicID, requestID, logs.String())
	}
	if got := testutil.ToFloat64(s.metrics.panics); got != 1 {
		t.Errorf("toolgate_http_panics_total = %v, want 1", got)
	}
	if got := testutil.ToFloat64(s.metrics.requests.WithLabelValues("/boom", "GET", "500")); got != 1 {
		t.Errorf(`toolgate_http_requests_total{route="/boom",code="500"} = %v, want 1`, got)
	}
}

// TestTimeoutDefaults: a config that leaves them out drops an event stream
// whose client took nothing for 30 s (sse_stall_timeout) and cuts a request
// body that has not arrived within 30 s (read_timeout), as documented.
func TestTimeoutDefaults(t *testing.T) {
	var c Config
	c.defaults()
	if got := time.Duration(c.SSEStallTimeout); got != 30*time.Second {
		t.Errorf("sse_stall_timeout default = %v, want 30s", got)
	}
	if got := c.readTimeout(); got != 30*time.Second {
		t.Errorf("read_timeout default = %v, want 30s", got)
	}
}

// TestJSONAnswerHasLength checks that a JSON answer goes out with its
// Content-Length, not chunked, and that the length is the body's: a short
// one, ones about net/http's 2 KB buffer (either side of it), and a long
// one.
func TestJSONAnswerHasLength(t *testing.T) {
	ts := newTestServer(t)
	// The answer of an echo of n bytes of text is n+around bytes (ids of one length).
	frame := func(text string) int {
		resp := ts.do(t, "POST", "/v1/tool_use", toolUse("len9", "echo", map[string]any{"text": text}))
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return len(body) - len(text)
	}
	around := frame("x")
	const buffer = 2048 // net/http's bufferBeforeChunkingSize
	for i, size := range []int{1, buffer - 1 - around, buffer - around, buffer + 1 - around, 8 << 10} {
		text := strings.Repeat("x", size)
		resp := ts.do(t, "POST", "/v1/tool_use", toolUse(fmt.Sprintf("len%d", i), "echo", map[string]any{"text": text}))
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), text) {
			t.Fatalf("status %d, body of %d bytes without the text", resp.StatusCode, len(body))
		}
		if len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(body)) {
			t.Errorf("a body of %d bytes: Transfer-Encoding %v, Content-Length %d; want no chunking and %d",
				len(body), resp.TransferEncoding, resp.ContentLength, len(body))
		}
	}
}
