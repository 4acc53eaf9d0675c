package server

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// An open event stream keeps its session from expiring however quiet it
// is; once the client leaves, the session expires like any idle one.
func TestOpenStreamHoldsSession(t *testing.T) {
	s := newExecServer(t)
	sid := s.session(t)
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }

	ctx, cancel := context.WithCancel(t.Context())
	resp := s.request(t, ctx, "GET", "/v1/sessions/"+sid+"/events", nil, "text/event-stream")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events: status %d", resp.StatusCode)
	}
	if got := s.coord.Sessions().ExpireIdle(later()); len(got) != 0 {
		t.Fatalf("expired %v while its stream was open", got)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for len(s.coord.Sessions().ExpireIdle(later())) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the session never expired after its stream closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	gone := s.request(t, t.Context(), "GET", "/v1/sessions/"+sid, nil, "")
	gone.Body.Close()
	if gone.StatusCode != http.StatusNotFound {
		t.Errorf("GET expired session: status %d, want 404", gone.StatusCode)
	}
}
