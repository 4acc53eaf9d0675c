package server

import (
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testwait"
)

// TestBrowserConsolePollsLogAtDebug: an open console's reads on its
// timers (the inbox every 3 s, sessions, jobs and figures every 5 s) are
// logged at debug, so the request log at info keeps the requests a person
// or an agent made (the console's own tool list among them).
func TestBrowserConsolePollsLogAtDebug(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	ctx := newBrowser(t, 45*time.Second)
	openConsole(t, ctx, env)

	polled := map[string]bool{"/v1/approvals": true, "/v1/sessions": true, "/v1/tool-stats": true, "/metrics": true, "/v1/sessions/default/jobs": true}
	requests := func(path string) (n int) {
		for _, line := range logLines(t, env.logs) {
			if line["msg"] == "http request" && line["path"] == path {
				n++
			}
		}
		return n
	}
	// The inbox asks once on login and again 3 s later, on its timer.
	testwait.Until(t, 20*time.Second, "the inbox's timer to read /v1/approvals a second time", func() bool {
		return requests("/v1/approvals") >= 2
	})
	seen, info := map[string]bool{}, 0
	for _, line := range logLines(t, env.logs) {
		path, _ := line["path"].(string)
		if line["msg"] != "http request" {
			continue
		}
		if line["level"] == "INFO" {
			info++
		}
		if polled[path] && line["method"] == "GET" {
			seen[path] = true
			if line["level"] != "DEBUG" {
				t.Errorf("the console's read of %s logged at %v, want DEBUG", path, line["level"])
			}
		}
	}
	for path := range polled {
		if !seen[path] {
			t.Errorf("no read of %s logged: the console did not ask it", path)
		}
	}
	if requests("/v1/tools") == 0 || info == 0 {
		t.Errorf("no info line for the console's tool list (%d info lines): the request log lost what is not a poll", info)
	}
}
