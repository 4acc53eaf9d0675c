package server

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// answerWatch is a closer that notes whether it was closed after the
// test received its request's answer.
type answerWatch struct {
	answered chan struct{} // closed by the test once it read the answer
	closed   chan bool     // receives whether the close came after it
}

// Close waits for the answer a while: a close made before the answer is
// sent would hold it back, so it gives up and says so.
func (w *answerWatch) Close() error {
	select {
	case <-w.answered:
		w.closed <- true
	case <-time.After(2 * time.Second):
		w.closed <- false
	}
	return nil
}

// TestCloseAfterAnswer: what a call closes through CloseAfterAnswer is
// closed once the request's answer has reached its client, not before,
// and closed by the end of the request, for a lone tool_use and for a
// message's calls.
func TestCloseAfterAnswer(t *testing.T) {
	var watch *answerWatch
	reg := tool.Registration{Name: "hold", Factory: func(name string, _ tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[echoInput]{Name: name, Description: "Close after the answer.",
			Run: func(_ context.Context, call *tool.Call, in *echoInput) (tool.Result, error) {
				call.CloseAfterAnswer(watch)
				return tool.TextResult(in.Text), nil
			}})
	}}
	f := newFixture(t, fixtureOptions{tools: []tool.Registration{reg}, server: Config{Token: testToken},
		config: coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	for _, c := range []struct {
		name, path string
		body       any
	}{
		{"tool_use", "/v1/tool_use", toolUse("toolu_after", "hold", map[string]any{"text": "a"})},
		{"message", "/v1/sessions/default/messages", assistant(toolUse("toolu_after_msg", "hold", map[string]any{"text": "b"}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			watch = &answerWatch{answered: make(chan struct{}), closed: make(chan bool, 1)}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			resp, err := ts.Client().Do(ts.request(t, http.MethodPost, c.path, c.body).WithContext(ctx))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("answer = %d %s (%v)", resp.StatusCode, body, err)
			}
			close(watch.answered)
			select {
			case after := <-watch.closed:
				if !after {
					t.Fatal("closed before the answer was sent")
				}
			case <-ctx.Done():
				t.Fatal("never closed")
			}
		})
	}
}
