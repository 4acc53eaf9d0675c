package server

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestBrowserActionOpensSessionPorts: browser_action of a session opens
// http://localhost:PORT of the session's own network, a dev server its
// background job started, which toolgate's loopback does not have.
func TestBrowserActionOpensSessionPorts(t *testing.T) {
	chromiumPath(t)
	s := newNetworkServer(t, sandbox.Config{})
	sid := s.session(t)
	events := s.events(t, sid)
	port := 20000 + (os.Getpid()+7)%20000
	resp := decodeJSON[api.MessageResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages",
		message(backgroundUse("srv", fmt.Sprintf("exec node server.js %d", port))), ""), http.StatusOK)
	if resp.Message.Content[0].IsError {
		t.Fatalf("start the server: %+v", resp.Message.Content[0])
	}
	waitEvent(t, events, "port.listening", func(e api.Event) bool {
		return e.Type == api.EventPortListening && e.Port != nil && e.Port.Port == port
	})
	launch := map[string]any{"type": "tool_use", "id": "br1", "name": "browser_action",
		"input": map[string]any{"action": "launch", "url": fmt.Sprintf("http://localhost:%d/console", port)}}
	resp = decodeJSON[api.MessageResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages", message(launch), ""), http.StatusOK)
	if text := resultText(resp.Message.Content[0]); resp.Calls[0].Status != api.StatusSucceeded || !strings.Contains(text, "hello from the session's dev server") {
		t.Fatalf("launch: %+v\n%s", resp.Calls[0], text)
	}
}
