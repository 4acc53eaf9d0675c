package server

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/launch"
)

// logLines parses the JSON log lines written so far.
func logLines(t *testing.T, l *launch.LogBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(l.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// TestRequestIDReachesCallLog sends a tool_use and a message with an
// X-Request-Id and checks that the coordinator's "tool call" line of each
// call carries the id of the request that brought it, as the request's
// own "http request" line does.
func TestRequestIDReachesCallLog(t *testing.T) {
	var logs launch.LogBuffer
	f := newFixture(t, fixtureOptions{tools: testTools(), server: Config{Token: testToken},
		logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), // "tool call" is a debug line
		config: coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}

	resp := ts.do(t, http.MethodPost, "/v1/tool_use", toolUse("toolu_rid1", "echo", map[string]any{"text": "a"}), "X-Request-Id", "req-one")
	decodeBody[map[string]any](t, resp, http.StatusOK)
	resp = ts.do(t, http.MethodPost, "/v1/sessions", map[string]any{"mode": "act"})
	sess := decodeBody[api.Session](t, resp, http.StatusCreated)
	resp = ts.do(t, http.MethodPost, "/v1/sessions/"+sess.ID+"/messages",
		assistant(toolUse("toolu_rid2", "echo", map[string]any{"text": "b"})), "X-Request-Id", "req-two")
	decodeBody[map[string]any](t, resp, http.StatusOK)

	want := map[string]string{"toolu_rid1": "req-one", "toolu_rid2": "req-two"}
	seen := map[string]bool{}
	for _, line := range logLines(t, &logs) {
		if line["msg"] != "tool call" {
			continue
		}
		id, _ := line["tool_use_id"].(string)
		if w, ok := want[id]; ok {
			seen[id] = true
			if got := line["request_id"]; got != w {
				t.Errorf("call %s logged request_id %v, want %q", id, got, w)
			}
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("no tool call line for %s", id)
		}
	}
}
