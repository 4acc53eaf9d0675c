package server

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// scrapeUntil polls /metrics until every pattern matches, or fails at the
// deadline with the last scrape.
func scrapeUntil(t *testing.T, ts *testServer, deadline time.Duration, patterns ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for {
		resp, err := ts.Client().Get(ts.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		missing := ""
		for _, p := range patterns {
			if !regexp.MustCompile(`(?m)^` + p + `$`).Match(body) {
				missing = p
				break
			}
		}
		if missing == "" {
			return string(body)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("scrape never showed %s:\n%s", missing, grepLines(string(body), "toolgate_"))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func grepLines(s, prefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestLiveStateMetrics: the dashboard's live series follow real calls:
// sessions, a call waiting for approval (and its wait once decided), and
// a command while it runs.
func TestLiveStateMetrics(t *testing.T) {
	f := newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "hello\n"}, server: Config{Token: testToken}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	scrapeUntil(t, ts, 5*time.Second, `toolgate_sessions 1`, `toolgate_approvals_waiting 0`, `toolgate_commands_running 0`,
		`toolgate_mcp_servers\{state="connected"\} 0`, `toolgate_approval_wait_seconds_count 0`)

	sess := decodeBody[api.Session](t, ts.do(t, "POST", "/v1/sessions", map[string]any{
		"permissions": map[string]any{"ask": []string{"read_file"}, "allow": []string{"execute_command"}}}), 201)
	scrapeUntil(t, ts, 5*time.Second, `toolgate_sessions 2`)

	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := ts.Client().Do(ts.request(t, "POST", "/v1/sessions/"+sess.ID+"/messages", assistant(toolUse("m1", "read_file", map[string]any{"path": "a.txt"}))))
		if err == nil {
			resp.Body.Close()
		}
	}()
	scrapeUntil(t, ts, 5*time.Second, `toolgate_approvals_waiting 1`)
	decodeBody[map[string]any](t, ts.do(t, "POST", "/v1/sessions/"+sess.ID+"/calls/m1/decision", map[string]any{"decision": "approve"}), 200)
	receive(t, done)
	scrapeUntil(t, ts, 5*time.Second, `toolgate_approvals_waiting 0`, `toolgate_approval_wait_seconds_count 1`)

	// A command that waits on a pipe nobody writes runs until cancelled.
	go func() {
		resp, err := ts.Client().Do(ts.request(t, "POST", "/v1/sessions/"+sess.ID+"/messages", assistant(toolUse("c1", "execute_command",
			map[string]any{"command": "sleep 20", "requires_approval": false, "timeout": 20}))))
		if err == nil {
			resp.Body.Close()
		}
	}()
	scrapeUntil(t, ts, 10*time.Second, `toolgate_commands_running 1`)
	if resp := ts.do(t, "POST", "/v1/sessions/"+sess.ID+"/calls/c1/cancel", nil); resp.StatusCode != 202 {
		t.Fatalf("cancel: %s", resp.Status)
	}
	scrapeUntil(t, ts, 10*time.Second, `toolgate_commands_running 0`)
}
