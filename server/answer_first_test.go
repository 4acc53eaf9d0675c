package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// heldLog holds every request log line until released: the other lines
// pass.
type heldLog struct {
	release chan struct{}
	held    chan struct{} // closed at the first line held
	out     lockedBuffer
}

func (h *heldLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"msg":"http request"`)) {
		select {
		case <-h.held:
		default:
			close(h.held)
		}
		<-h.release
	}
	return h.out.Write(p)
}

// TestAnswerBeforeLogLine: a call's answer reaches its client before the
// request's log line is written, so a log that is slow to take lines
// (here: one that takes none until released) holds no answer back. The
// line is still written, once the log takes it.
func TestAnswerBeforeLogLine(t *testing.T) {
	logs := &heldLog{release: make(chan struct{}), held: make(chan struct{})}
	f := newFixture(t, fixtureOptions{tools: testTools(), server: Config{Token: testToken},
		logger: slog.New(slog.NewJSONHandler(logs, nil)),
		config: coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	released := false
	release := func() {
		if !released {
			released = true
			close(logs.release)
		}
	}
	defer release() // the server's close waits for the handler

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req := ts.request(t, http.MethodPost, "/v1/tool_use", toolUse("toolu_first", "echo", map[string]any{"text": "a"}), "X-Request-Id", "answered-first")
	resp, err := ts.Client().Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("no answer while the log line waited: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(string(api.StatusSucceeded))) {
		t.Fatalf("answer = %d %s (%v), want 200 and the call's result", resp.StatusCode, body, err)
	}
	select {
	case <-logs.held:
	case <-ctx.Done():
		t.Fatal("the request's log line was never written")
	}
	release()
	for !bytes.Contains([]byte(logs.out.String()), []byte(`"request_id":"answered-first"`)) {
		if ctx.Err() != nil {
			t.Fatalf("the request's line never reached the log: %s", logs.out.String())
		}
		time.Sleep(time.Millisecond)
	}
}
