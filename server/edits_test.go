package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/handlers"
	"github.com/toolgate/toolgate/server"
)

const editToken = "test-token"

// editServer is a real server over a real coordinator with the default
// tools, in a workspace holding files.
type editServer struct {
	url string
	dir string
}

func newEditServer(t *testing.T, cfg coordinator.Config, files map[string]string) *editServer {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := coordinator.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	logger := slog.New(slog.DiscardHandler)
	coord := coordinator.New(coordinator.Options{Config: cfg, Workspace: ws, Tools: handlers.Default(), Logger: logger, Registerer: reg})
	ts := httptest.NewServer(server.New(logger, coord, reg, server.Config{Token: editToken}))
	t.Cleanup(func() {
		ts.Close()
		coord.Close()
		ws.Close()
	})
	return &editServer{url: ts.URL, dir: ws.Dir}
}

// do sends a request with the token and returns the status and body.
func (s *editServer) do(t *testing.T, method, path string, body any, accept string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+editToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// use is a tool_use block.
func use(id, name string, input map[string]any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

// message posts an assistant message to the default session.
func (s *editServer) message(t *testing.T, blocks ...map[string]any) api.MessageResponse {
	t.Helper()
	code, body := s.do(t, http.MethodPost, "/v1/sessions/default/messages", map[string]any{"role": "assistant", "content": blocks}, "")
	if code != http.StatusOK {
		t.Fatalf("POST messages: status %d, body %s", code, body)
	}
	var resp api.MessageResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	return resp
}

// call runs one tool_use and returns its record and result text.
func (s *editServer) call(t *testing.T, id, name string, input map[string]any) (api.CallRecord, string) {
	t.Helper()
	resp := s.message(t, use(id, name, input))
	if len(resp.Calls) != 1 {
		t.Fatalf("got %d calls, want 1", len(resp.Calls))
	}
	text := ""
	for _, c := range resp.Message.Content[0].Content {
		text += c.Text
	}
	return resp.Calls[0], text
}

func (s *editServer) file(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, name))
	if os.IsNotExist(err) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (s *editServer) setFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sseEvents parses a server-sent event stream into events.
func sseEvents(t *testing.T, body []byte) []api.Event {
	t.Helper()
	var evs []api.Event
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev api.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func diffBlock(search, replace string) string {
	return "------- SEARCH\n" + search + "=======\n" + replace + "+++++++ REPLACE\n"
}
