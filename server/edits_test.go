package server

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// editServer is a real server over a real coordinator with the default
// tools, in a workspace holding files; every exchange is checked against
// openapi.yaml.
type editServer struct {
	*testServer
	dir string
}

func newEditServer(t *testing.T, cfg coordinator.Config, files map[string]string) *editServer {
	t.Helper()
	cfg.AllowAll = true // these tests are about edits, not approving them
	f := newFixture(t, fixtureOptions{files: files, config: cfg, server: Config{Token: testToken, SSEStallTimeout: coordinator.Duration(2 * time.Second)}})
	return &editServer{testServer: &testServer{Server: f.ts, coord: f.coord, reg: f.reg}, dir: f.dir}
}

// call runs one tool_use in the default session and returns its record
// and result text.
func (s *editServer) call(t *testing.T, id, name string, input map[string]any) (api.CallRecord, string) {
	t.Helper()
	resp := decodeBody[api.MessageResponse](t, s.do(t, http.MethodPost, "/v1/sessions/default/messages", assistant(toolUse(id, name, input))), http.StatusOK)
	if len(resp.Calls) != 1 {
		t.Fatalf("got %d calls, want 1", len(resp.Calls))
	}
	text := ""
	for _, c := range resp.Message.Content[0].Content {
		text += c.Text
	}
	return resp.Calls[0], text
}

// revert posts a revert and returns the status and body.
func (s *editServer) revert(t *testing.T, id string) (int, string) {
	t.Helper()
	resp := s.do(t, http.MethodPost, "/v1/sessions/default/calls/"+id+"/revert", nil)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
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

// setFile changes a file behind the session's back.
func (s *editServer) setFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// partialUse is a tool_use block still streaming in.
func partialUse(id, name string, input any) map[string]any {
	raw, _ := json.Marshal(input)
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": json.RawMessage(raw), "partial": true}
}

func searchReplace(search, replace string) string {
	return "------- SEARCH\n" + search + "=======\n" + replace + "+++++++ REPLACE\n"
}
