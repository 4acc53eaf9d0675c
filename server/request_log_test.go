package server

import (
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/launch"
)

// TestConsolePollsLogAtDebug: a read the console makes on its timer
// (X-Toolgate-Poll) is logged at debug when it succeeds; the same read
// without the mark, a poll that fails, and a write carrying the mark are
// logged at info.
func TestConsolePollsLogAtDebug(t *testing.T) {
	var logs launch.LogBuffer
	f := newFixture(t, fixtureOptions{tools: testTools(), server: Config{Token: testToken},
		logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	send := func(method, path, id string, hdr ...string) {
		t.Helper()
		resp := ts.do(t, method, path, map[string]any{"mode": "act"}, append([]string{"X-Request-Id", id}, hdr...)...)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	send(http.MethodGet, "/v1/approvals", "poll-ok", PollHeader, "1")
	send(http.MethodGet, "/v1/sessions", "poll-ok-2", PollHeader, "1")
	send(http.MethodGet, "/v1/approvals", "plain", "")
	send(http.MethodGet, "/v1/sessions/nope/jobs", "poll-failed", PollHeader, "1")
	send(http.MethodPost, "/v1/sessions", "poll-write", PollHeader, "1")

	want := map[string]string{"poll-ok": "DEBUG", "poll-ok-2": "DEBUG", "plain": "INFO", "poll-failed": "INFO", "poll-write": "INFO"}
	got := map[string]string{}
	// A request's line is written once its answer is sent: the last one
	// may still be on its way.
	deadline := time.Now().Add(10 * time.Second)
	for got["poll-write"] == "" && time.Now().Before(deadline) {
		for _, line := range logLines(t, &logs) {
			if line["msg"] == "http request" {
				id, _ := line["request_id"].(string)
				got[id], _ = line["level"].(string)
			}
		}
		time.Sleep(time.Millisecond)
	}
	for id, level := range want {
		if got[id] != level {
			t.Errorf("request %s logged at %q, want %s", id, got[id], level)
		}
	}
}
