package server

import (
	"io"
	"testing"
	"time"
)

// A streamed message ends after message.finished, so a client that reads
// to the end of the body (curl, EventSource-less scripts) is not left hanging.
func TestMessageSSEEnds(t *testing.T) {
	ts := newTestServer(t)
	msg := assistant(toolUse("e1", "echo", map[string]any{"text": "one"}))
	resp := ts.do(t, "POST", "/v1/sessions/default/messages", msg, "Accept", "text/event-stream")
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("reading the stream: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the stream did not end after message.finished")
	}
}
