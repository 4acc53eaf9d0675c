package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// getWithin makes one GET that must end within 20 s: a stream that never
// ends fails the test instead of hanging it.
func getWithin(t *testing.T, f *fixture, path string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", f.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+flowToken)
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s did not end: %v", path, err)
	}
	return resp.StatusCode, string(body)
}

// TestEventsFollowFalseEndsAfterTheWindow: with follow=false the event
// stream is a finite response, the events the session held when it was
// asked, for a client that cannot hold a stream open (a request
// collection, a script); Last-Event-ID still picks where it starts.
func TestEventsFollowFalseEndsAfterTheWindow(t *testing.T) {
	f := scopeServer(t)
	if status, body := send(t, f, flowToken, "POST", "/v1/tool_use", toolUse("toolu_f1", "read_file", map[string]any{"path": "a.txt"})); status != http.StatusOK {
		t.Fatalf("read: %d %s", status, body)
	}
	status, body := getWithin(t, f, "/v1/sessions/default/events?follow=false")
	if status != http.StatusOK || !strings.Contains(body, "event: tool.queued") || !strings.Contains(body, "event: tool.finished") {
		t.Fatalf("follow=false: %d\n%s", status, body)
	}
	// An empty window ends at once.
	_, created := send(t, f, flowToken, "POST", "/v1/sessions", map[string]any{"id": "quiet"})
	if status, body := getWithin(t, f, "/v1/sessions/quiet/events?follow=false"); status != http.StatusOK || strings.Contains(body, "event:") {
		t.Fatalf("empty window: %d %q (session %s)", status, body, created)
	}
	if status, body := getWithin(t, f, "/v1/sessions/default/events?follow=maybe"); status != http.StatusBadRequest {
		t.Errorf("follow=maybe: %d %s, want 400", status, body)
	}
}
