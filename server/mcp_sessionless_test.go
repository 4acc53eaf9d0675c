package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// postMCP posts one JSON-RPC message to /mcp with no Mcp-Session-Id, as
// curl or Postman would, and returns the response with the JSON-RPC
// answer read from its body (JSON or an event stream ending with it).
func postMCP(t *testing.T, url, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	data := raw
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = nil
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				data = []byte(d)
			}
		}
	}
	var msg map[string]any
	if err := json.Unmarshal(data, &msg); err != nil {
		t.Fatalf("%d %s: not a JSON-RPC answer: %v", resp.StatusCode, raw, err)
	}
	return resp, msg
}

// TestMCPSessionless: a message that names no MCP session and initializes
// none is answered at once (tools/list, tools/call through policy), with
// no session made; initialize still starts a session.
func TestMCPSessionless(t *testing.T) {
	ts, _ := newMCPTestServer(t)
	t.Run("tools/list", func(t *testing.T) {
		resp, msg := postMCP(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		b, _ := json.Marshal(msg["result"])
		if resp.StatusCode != http.StatusOK || msg["error"] != nil || !strings.Contains(string(b), `"name":"read_file"`) {
			t.Errorf("tools/list = %d %v, want the tools", resp.StatusCode, msg)
		}
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			t.Errorf("Mcp-Session-Id = %q, want none: nobody names this session again", id)
		}
	})
	t.Run("tools/call", func(t *testing.T) {
		_, msg := postMCP(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`)
		if b, _ := json.Marshal(msg["result"]); !strings.Contains(string(b), "hello from a") {
			t.Errorf("tools/call read_file = %v, want the file", msg)
		}
		_, msg = postMCP(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"secret.txt"}}}`)
		if b, _ := json.Marshal(msg["result"]); strings.Contains(string(b), "s3cret") || !strings.Contains(string(b), `"isError":true`) {
			t.Errorf("tools/call read_file(secret.txt) = %v, want the deny rule's refusal", msg)
		}
	})
	t.Run("initialize starts a session", func(t *testing.T) {
		resp, msg := postMCP(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if resp.Header.Get("Mcp-Session-Id") == "" || msg["error"] != nil {
			t.Errorf("initialize = %v (Mcp-Session-Id %q), want a session", msg, resp.Header.Get("Mcp-Session-Id"))
		}
	})
}
