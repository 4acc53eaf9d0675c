package server

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/launch"
)

// runMessage posts a message of n echo calls to the default session.
func runMessage(t *testing.T, ts *testServer, prefix string, n int, text string) {
	t.Helper()
	var blocks []any
	for i := range n {
		blocks = append(blocks, toolUse(fmt.Sprintf("%s%d", prefix, i), "echo", map[string]any{"text": text}))
	}
	resp := ts.do(t, "POST", "/v1/sessions/default/messages", assistant(blocks...))
	decodeBody[api.MessageResponse](t, resp, 200)
}

func TestEventsReplay(t *testing.T) {
	ts := newTestServer(t)
	runMessage(t, ts, "r", 2, "x") // events 1..11: 2 queued, 2x(started, output, finished)... message.finished
	last := ts.coord.Sessions().List()[0].Events.LastID()
	isLast := func(e sseEvent) bool { return e.Data.ID == last }
	cases := []struct {
		name, lastEventID string
		wantFirst         int64
	}{
		{"from the start", "", 1},
		{"resume", "3", 4},
		{"negative", "-5", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := []string{}
			if c.lastEventID != "" {
				hdr = []string{"Last-Event-ID", c.lastEventID}
			}
			resp := ts.do(t, "GET", "/v1/sessions/default/events", nil, hdr...)
			defer resp.Body.Close()
			evs := readEvents(t, resp.Body, 5*time.Second, isLast)
			if evs[0].Data.ID != c.wantFirst {
				t.Errorf("first id = %d, want %d", evs[0].Data.ID, c.wantFirst)
			}
			for i := 1; i < len(evs); i++ {
				if evs[i].Data.ID != evs[i-1].Data.ID+1 || evs[i].ID != fmt.Sprint(evs[i].Data.ID) {
					t.Fatalf("ids not consecutive: %s after %s", evs[i].ID, evs[i-1].ID)
				}
			}
		})
	}
	t.Run("huge id waits for new events", func(t *testing.T) {
		resp := ts.do(t, "GET", "/v1/sessions/default/events", nil, "Last-Event-ID", "9223372036854775807")
		defer resp.Body.Close()
		go runMessage(t, ts, "h", 1, "later")
		evs := readEvents(t, resp.Body, 5*time.Second, func(e sseEvent) bool { return e.Name == api.EventMessageFinished })
		if evs[0].Data.ID != last+1 {
			t.Errorf("first id = %d, want %d (the next new event)", evs[0].Data.ID, last+1)
		}
	})
	t.Run("not a number", func(t *testing.T) {
		decodeBody[api.ErrorResponse](t, ts.do(t, "GET", "/v1/sessions/default/events", nil, "Last-Event-ID", "abc"), 400)
	})
	t.Run("unknown session", func(t *testing.T) {
		decodeBody[api.ErrorResponse](t, ts.do(t, "GET", "/v1/sessions/nope/events", nil), 404)
	})
}

func TestEventsEndWithSession(t *testing.T) {
	ts := newTestServer(t)
	s := decodeBody[api.Session](t, ts.do(t, "POST", "/v1/sessions", map[string]any{}), 201)
	resp := ts.do(t, "GET", "/v1/sessions/"+s.ID+"/events", nil)
	defer resp.Body.Close()
	waitFor(t, func() bool { return ts.subscribers(t) == 1 })
	ts.do(t, "DELETE", "/v1/sessions/"+s.ID, nil).Body.Close()
	readEvents(t, resp.Body, 5*time.Second, func(sseEvent) bool { return false }) // returns at EOF
	waitFor(t, func() bool { return ts.subscribers(t) == 0 })
}

// TestStalledReaderIsDropped opens an event stream that never reads while a
// healthy client reads everything: the calls finish, the healthy client
// gets every event, and the stalled one is dropped, counted in
// toolgate_sse_dropped_total.
func TestStalledReaderIsDropped(t *testing.T) {
	logs := &launch.LogBuffer{}
	f := newFixture(t, fixtureOptions{tools: testTools(), logger: slog.New(slog.NewTextHandler(logs, nil)),
		server: Config{Token: testToken, SSEStallTimeout: coordinator.Duration(300 * time.Millisecond)},
		config: coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	stalled, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	fmt.Fprintf(stalled, "GET /v1/sessions/default/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n", testToken)

	healthy := ts.do(t, "GET", "/v1/sessions/default/events", nil)
	defer healthy.Body.Close()
	waitFor(t, func() bool { return ts.subscribers(t) == 2 })

	const calls = 60
	big := strings.Repeat("x", 100<<10) // each call emits ~200 KiB of events
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 4 {
			runMessage(t, ts, fmt.Sprintf("b%d-", i), calls/4, big)
		}
	}()
	evs := readEvents(t, healthy.Body, 60*time.Second, func(e sseEvent) bool {
		r := e.Data.Response
		return e.Name == api.EventMessageFinished && r != nil && r.Message.Content[0].ToolUseID == "b3-0"
	})
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("calls blocked by a stalled reader")
	}
	finished := 0
	for _, e := range evs {
		if e.Name == api.EventToolFinished {
			finished++
		}
	}
	if finished != calls {
		t.Errorf("healthy reader got %d tool.finished events, want %d", finished, calls)
	}
	waitFor(t, func() bool { return ts.subscribers(t) == 1 })
	if n := ts.counter(t, "toolgate_sse_dropped_total"); n != 1 {
		t.Errorf("toolgate_sse_dropped_total = %v, want 1", n)
	}
	if got := logs.String(); !strings.Contains(got, "event stream dropped") || !strings.Contains(got, "stall_timeout=300ms") {
		t.Errorf("the drop was not logged with its stall timeout:\n%s", got)
	}
}

// subscribers reads the toolgate_sse_subscribers gauge.
func (ts *testServer) subscribers(t *testing.T) float64 {
	t.Helper()
	n, err := testutil.GatherAndCount(ts.reg, "toolgate_sse_subscribers")
	if err != nil || n != 1 {
		t.Fatalf("gather: %v (%d series)", err, n)
	}
	mfs, _ := ts.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "toolgate_sse_subscribers" {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return -1
}

// counter reads an unlabelled counter.
func (ts *testServer) counter(t *testing.T, name string) float64 {
	t.Helper()
	mfs, err := ts.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no series %s", name)
	return 0
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestEventsKeepAlive leaves an event stream idle: the server sends a
// keep-alive comment every heartbeat, so proxies and clients with idle
// timeouts do not cut a stream that is only waiting.
func TestEventsKeepAlive(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.SSEHeartbeat = 20 * time.Millisecond })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req := ts.request(t, "GET", "/v1/sessions/default/events", nil).WithContext(ctx)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	beats := 0
	for beats < 2 && sc.Scan() {
		if sc.Text() == ": keep-alive" {
			beats++
		}
	}
	if beats < 2 {
		t.Fatalf("got %d keep-alive comments before the stream ended or the deadline (%v), want 2", beats, sc.Err())
	}
}
