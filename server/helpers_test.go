package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

const testToken = "test-token-0123456789"

// echoInput is the input of the test tools.
type echoInput struct {
	Text  string `json:"text" validate:"required" jsonschema:"text to echo"`
	Delay int    `json:"delay_ms,omitempty" validate:"omitempty,min=0,max=60000" jsonschema:"milliseconds to wait first"`
}

// testTools are tools whose behaviour the server tests control: echo
// returns its text (after an optional delay that a cancel interrupts),
// boom panics, write pretends to write (plan mode refuses it).
func testTools() []tool.Registration {
	echo := func(ctx context.Context, call *tool.Call, in *echoInput) (tool.Result, error) {
		call.Output("stdout", "echo:"+in.Text)
		if in.Delay > 0 {
			select {
			case <-time.After(time.Duration(in.Delay) * time.Millisecond):
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		}
		return tool.TextResult(in.Text), nil
	}
	return []tool.Registration{
		{Name: "echo", Factory: func(name string, _ tool.Env) *tool.Tool {
			return coordinator.NewTool(tool.Spec[echoInput]{Name: name, Description: "Echo text.", Run: echo})
		}},
		{Name: "boom", Factory: func(name string, _ tool.Env) *tool.Tool {
			return coordinator.NewTool(tool.Spec[echoInput]{Name: name, Description: "Panic.",
				Run: func(context.Context, *tool.Call, *echoInput) (tool.Result, error) { panic("kaboom") }})
		}},
		{Name: "write", Factory: func(name string, _ tool.Env) *tool.Tool {
			return coordinator.NewTool(tool.Spec[echoInput]{Name: name, Description: "Pretend to write.", Run: echo, Writes: true})
		}},
	}
}

type testServer struct {
	*httptest.Server
	coord *coordinator.Coordinator
	reg   *prometheus.Registry
	// workspace is the fixture's workspace directory, where a test set it.
	workspace string
}

func newTestServer(t *testing.T, mutate ...func(*Config)) *testServer {
	t.Helper()
	cfg := Config{Token: testToken, SSEStallTimeout: coordinator.Duration(2 * time.Second)}
	for _, m := range mutate {
		m(&cfg)
	}
	// These tests exercise HTTP, not approvals (policy_flow_test.go does):
	// allow_all keeps the "write" tool from waiting for a decision.
	f := newFixture(t, fixtureOptions{tools: testTools(), server: cfg,
		config: coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}})
	return &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
}

// do sends an authorised request with a JSON body (when body is not nil).
func (ts *testServer) do(t *testing.T, method, path string, body any, hdr ...string) *http.Response {
	t.Helper()
	resp, err := ts.Client().Do(ts.request(t, method, path, body, hdr...))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// decodeBody decodes a response and checks its status.
func decodeBody[T any](t *testing.T, resp *http.Response, wantStatus int) T {
	t.Helper()
	defer resp.Body.Close()
	var v T
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("status = %d, want %d; body: %s", resp.StatusCode, wantStatus, data)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

func toolUse(id, name string, input any) api.ToolUse {
	raw, _ := json.Marshal(input)
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: name, Input: raw}
}

func assistant(blocks ...any) map[string]any {
	return map[string]any{"role": "assistant", "content": blocks}
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	ID, Name string
	Data     api.Event
}

// readEvents parses SSE events from r until stop returns true or the
// stream ends. It fails the test if the deadline passes first.
func readEvents(t *testing.T, r io.Reader, deadline time.Duration, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	type result struct {
		evs []sseEvent
		err error
	}
	done := make(chan result, 1)
	go func() {
		var evs []sseEvent
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var cur sseEvent
		var data strings.Builder
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if data.Len() > 0 {
					if err := json.Unmarshal([]byte(data.String()), &cur.Data); err != nil {
						done <- result{evs, err}
						return
					}
					evs = append(evs, cur)
					if stop(cur) {
						done <- result{evs, nil}
						return
					}
				}
				cur, data = sseEvent{}, strings.Builder{}
			case strings.HasPrefix(line, "id: "):
				cur.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				cur.Name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data.WriteString(strings.TrimPrefix(line, "data: "))
			}
		}
		done <- result{evs, sc.Err()}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatalf("reading events: %v", res.err)
		}
		return res.evs
	case <-time.After(deadline):
		t.Fatalf("no end of events within %v", deadline)
		return nil
	}
}

// request builds an authorised request without sending it.
func (ts *testServer) request(t testing.TB, method, path string, body any, hdr ...string) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return req
}

type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

// testHTTP is the client of requests built by hand: every request has a
// deadline, so a server that never answers fails a test in a minute
// instead of hanging the suite.
var testHTTP = &http.Client{Timeout: 60 * time.Second}
