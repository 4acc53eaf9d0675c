package server

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// gates holds calls of the "gate" test tool until the test releases them.
type gates struct {
	mu      sync.Mutex
	started map[string]chan struct{}
	release map[string]chan struct{}
}

func (g *gates) get(tag string) (started, release chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.started[tag] == nil {
		g.started[tag], g.release[tag] = make(chan struct{}), make(chan struct{})
	}
	return g.started[tag], g.release[tag]
}

func (g *gates) waitStarted(t *testing.T, tag string) {
	t.Helper()
	started, _ := g.get(tag)
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatalf("call %s did not start", tag)
	}
}

type gateIn struct {
	Tag  string `json:"tag" validate:"required"`
	Safe bool   `json:"safe,omitempty"`
	Hold bool   `json:"hold,omitempty"`
}

// newStreamingServer serves a coordinator whose only tool is "gate".
func newStreamingServer(t *testing.T, cfg coordinator.Config) (*httptest.Server, *gates) {
	t.Helper()
	g := &gates{started: map[string]chan struct{}{}, release: map[string]chan struct{}{}}
	reg := tool.Registration{Name: "gate", Factory: func(string, tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[gateIn]{
			Name: "gate", Description: "waits for the test",
			Run: func(ctx context.Context, _ *tool.Call, in *gateIn) (tool.Result, error) {
				started, release := g.get(in.Tag)
				close(started)
				if in.Hold {
					select {
					case <-release:
					case <-ctx.Done():
					}
				}
				return tool.TextResult("ran " + in.Tag), nil
			},
			ConcurrencySafe: func(in *gateIn) bool { return in.Safe },
		})
	}}
	f := newFixture(t, fixtureOptions{noWorkspace: true, config: cfg, tools: []tool.Registration{reg},
		server: Config{Token: testToken}})
	return f.ts, g
}

// requestDeadline bounds every request of these tests: a call that never
// answers fails its test in seconds instead of hanging the suite.
const requestDeadline = 10 * time.Second

// call sends a request and decodes a JSON answer into out (when not nil).
func call(t *testing.T, srv *httptest.Server, method, path, body string, out any) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), requestDeadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: decode: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

// waitCallState polls a call's record until it reaches state want, with a
// deadline.
func waitCallState(t *testing.T, srv *httptest.Server, sid, id string, want api.CallState) {
	t.Helper()
	deadline := time.Now().Add(requestDeadline)
	for {
		var got api.CallResponse
		if call(t, srv, http.MethodGet, "/v1/sessions/"+sid+"/calls/"+id, "", &got) == http.StatusOK && got.Call.State == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("call %s did not reach state %s (last %q)", id, want, got.Call.State)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func block(id string, in gateIn, partial bool) string {
	in.Tag = id
	b, _ := json.Marshal(api.ToolUse{Type: api.TypeToolUse, ID: id, Name: "gate", Input: mustJSON(in), Partial: partial})
	return string(b)
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func newSession(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	var sess api.Session
	if code := call(t, srv, http.MethodPost, "/v1/sessions", `{}`, &sess); code != http.StatusCreated {
		t.Fatalf("create session: %d", code)
	}
	return sess.ID
}

func TestStreamingBlocksAndComplete(t *testing.T) {
	srv, g := newStreamingServer(t, coordinator.Config{})
	sid := newSession(t, srv)
	base := "/v1/sessions/" + sid + "/messages/m1"

	var acc api.BlockAccepted
	if code := call(t, srv, http.MethodPost, base+"/blocks", block("a", gateIn{Safe: true, Hold: true}, false), &acc); code != http.StatusAccepted {
		t.Fatalf("post block: %d, want 202", code)
	}
	if acc.MessageID != "m1" || acc.ToolUseID != "a" {
		t.Errorf("accepted %+v", acc)
	}
	g.waitStarted(t, "a") // before the message is complete
	t.Run("partial block", func(t *testing.T) {
		if code := call(t, srv, http.MethodPost, base+"/blocks", block("b", gateIn{}, true), nil); code != http.StatusAccepted {
			t.Errorf("partial block: %d, want 202", code)
		}
	})
	call(t, srv, http.MethodPost, base+"/blocks", block("b", gateIn{Safe: true}, false), nil)
	g.waitStarted(t, "b") // beside a
	// Started is not finished: b's record turns done a moment after its
	// handler returns.
	waitCallState(t, srv, sid, "b", api.StateDone)
	t.Run("state", func(t *testing.T) {
		var calls api.CallsResponse
		call(t, srv, http.MethodGet, "/v1/sessions/"+sid+"/calls?state=running", "", &calls)
		if len(calls.Calls) != 1 || calls.Calls[0].ToolUseID != "a" {
			t.Errorf("running calls %+v, want a alone", calls.Calls)
		}
	})
	t.Run("repeated block", func(t *testing.T) {
		if code := call(t, srv, http.MethodPost, base+"/blocks", block("b", gateIn{}, false), nil); code != http.StatusConflict {
			t.Errorf("repeated block: %d, want 409", code)
		}
	})
	_, release := g.get("a")
	close(release)
	var resp api.MessageResponse
	if code := call(t, srv, http.MethodPost, base+"/complete", "", &resp); code != http.StatusOK {
		t.Fatalf("complete: %d", code)
	}
	if len(resp.Message.Content) != 2 || resp.Message.Content[0].ToolUseID != "a" || resp.Message.Content[1].ToolUseID != "b" {
		t.Errorf("answer %+v, want results of a then b", resp.Message.Content)
	}
	t.Run("complete again", func(t *testing.T) {
		if code := call(t, srv, http.MethodPost, base+"/complete", "", nil); code != http.StatusNotFound {
			t.Errorf("second complete: %d, want 404", code)
		}
	})
}

func TestStreamingCompleteAsEvents(t *testing.T) {
	srv, g := newStreamingServer(t, coordinator.Config{})
	sid := newSession(t, srv)
	base := "/v1/sessions/" + sid + "/messages/m1"
	call(t, srv, http.MethodPost, base+"/blocks", block("a", gateIn{}, false), nil)
	g.waitStarted(t, "a")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel() // a stream that never ends fails the test instead of hanging it
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+base+"/complete", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var types []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			types = append(types, name)
		}
	}
	want := "tool.queued,tool.started,tool.finished,message.finished"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

func TestStreamingDiscardRoute(t *testing.T) {
	srv, g := newStreamingServer(t, coordinator.Config{})
	sid := newSession(t, srv)
	base := "/v1/sessions/" + sid + "/messages/m1"
	call(t, srv, http.MethodPost, base+"/blocks", block("a", gateIn{Hold: true}, false), nil)
	g.waitStarted(t, "a")
	if code := call(t, srv, http.MethodDelete, base, "", nil); code != http.StatusNoContent {
		t.Fatalf("discard: %d, want 204", code)
	}
	if code := call(t, srv, http.MethodGet, "/v1/sessions/"+sid+"/calls/a", "", nil); code != http.StatusNotFound {
		t.Errorf("discarded call still served: %d, want 404", code)
	}
	if code := call(t, srv, http.MethodDelete, base, "", nil); code != http.StatusNotFound {
		t.Errorf("second discard: %d, want 404", code)
	}
}

func TestStreamingOpenMessageBound(t *testing.T) {
	srv, _ := newStreamingServer(t, coordinator.Config{MaxOpenMessages: 1})
	sid := newSession(t, srv)
	call(t, srv, http.MethodPost, "/v1/sessions/"+sid+"/messages/m1/blocks", block("a", gateIn{}, false), nil)
	var e api.ErrorResponse
	code := call(t, srv, http.MethodPost, "/v1/sessions/"+sid+"/messages/m2/blocks", block("b", gateIn{}, false), &e)
	if code != http.StatusTooManyRequests || e.Error == nil || e.Error.Code != api.CodeTooManyMessages {
		t.Errorf("second open message: %d %+v, want 429 too_many_messages", code, e.Error)
	}
}

func TestInterruptRoute(t *testing.T) {
	srv, g := newStreamingServer(t, coordinator.Config{})
	sid := newSession(t, srv)
	base := "/v1/sessions/" + sid + "/messages/m1"
	call(t, srv, http.MethodPost, base+"/blocks", block("a", gateIn{Hold: true}, false), nil)
	call(t, srv, http.MethodPost, base+"/blocks", block("b", gateIn{}, false), nil)
	g.waitStarted(t, "a")
	var ir api.InterruptResponse
	if code := call(t, srv, http.MethodPost, "/v1/sessions/"+sid+"/interrupt", "", &ir); code != http.StatusOK {
		t.Fatalf("interrupt: %d", code)
	}
	if ir.Cancelled != 2 || ir.Finishing != 0 {
		t.Errorf("interrupt %+v, want 2 cancelled, 0 finishing", ir)
	}
	var resp api.MessageResponse
	call(t, srv, http.MethodPost, base+"/complete", "", &resp)
	for _, rec := range resp.Calls {
		if rec.Status != api.StatusCancelled {
			t.Errorf("%s: %s, want cancelled", rec.ToolUseID, rec.Status)
		}
	}
}
