package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestPhasesSplitTheCall: the stamped client splits a call into its
// three phases in order, and the phases add up to the call's time. The
// server holds its answer back until the request has arrived whole and
// then sends its first byte, waits, and sends the rest, so each phase
// is seen where it happens.
func TestPhasesSplitTheCall(t *testing.T) {
	const hold = 20 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		time.Sleep(hold) // the server's work: inside "first byte"
		_, _ = io.WriteString(w, "a")
		w.(http.Flusher).Flush()
		time.Sleep(hold) // the answer's tail: inside "rest"
		_, _ = io.WriteString(w, "b")
	}))
	defer srv.Close()
	clock := &phaseClock{}
	c := newClient(clock)
	start := time.Now()
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	end := time.Now()
	if err != nil || string(body) != "ab" {
		t.Fatalf("answer %q, %v", body, err)
	}
	p := clock.since(end)
	// The first byte cannot come before the server's first wait ends; the
	// client may stamp it late, by however long it waited for a thread,
	// which the rest then lacks: only the two together surely hold both
	// waits.
	if p.firstByte < hold || p.firstByte+p.rest < 2*hold || p.rest < hold/2 {
		t.Errorf("phases %+v: first byte and rest must hold the server's two %v waits", p, hold)
	}
	if p.write <= 0 || p.write+p.firstByte+p.rest > end.Sub(start) {
		t.Errorf("phases %+v do not fit in the call's %v", p, end.Sub(start))
	}
}
