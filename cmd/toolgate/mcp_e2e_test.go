package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// TestEndToEndMCP starts toolgate through run() with a config naming an
// MCP settings file by a relative path, the settings starting the test
// MCP server as a process over stdio; the server shows as connected and
// one use_mcp_tool call reaches it.
func TestEndToEndMCP(t *testing.T) {
	confDir := t.TempDir()
	bin := testbuild.Binary(t, testbuild.MCPTestServer)
	settings := `{"mcpServers": {"test": {"command": ` + quote(bin) + `, "autoApprove": ["echo"]}}}`
	if err := os.WriteFile(filepath.Join(confDir, "mcp.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(confDir, "toolgate.json")
	if err := os.WriteFile(config, []byte(`{"mcp": {"settings": "mcp.json"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The process starts elsewhere: the settings must be found next to
	// the config, not in the working directory.
	t.Chdir(t.TempDir())
	inst := start(t, t.TempDir(), "--config", config)

	t.Run("server connected", func(t *testing.T) {
		srv := awaitMCPConnected(t, inst, "test")
		if srv.Transport != "stdio" || srv.Tools == 0 {
			t.Errorf("server = %+v, want stdio with its tools", srv)
		}
	})
	t.Run("use_mcp_tool", func(t *testing.T) {
		msg := map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "toolu_mcp", "name": "use_mcp_tool",
				"input": map[string]any{"server_name": "test", "tool_name": "echo", "arguments": `{"text":"hi"}`}},
		}}
		resp := inst.post(t, "/v1/sessions/default/messages", msg)
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status = %d, want 200", resp.StatusCode)
		}
		var got api.MessageResponse
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatal(err)
		}
		if len(got.Message.Content) != 1 || len(got.Calls) != 1 {
			t.Fatalf("response = %+v, want one result and one call", got)
		}
		res := got.Message.Content[0]
		if res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "echo: hi") {
			t.Errorf("result = %+v, want the server's echo", res)
		}
		if got.Calls[0].Status != api.StatusSucceeded {
			t.Errorf("call status = %s, want succeeded", got.Calls[0].Status)
		}
	})
}

// awaitMCPConnected polls GET /v1/mcp/servers until the named server is
// connected, and returns its entry.
func awaitMCPConnected(t *testing.T, inst *instance, name string) api.MCPServer {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last []api.MCPServer
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest(http.MethodGet, inst.url+"/v1/mcp/servers", nil)
		req.Header.Set("Authorization", "Bearer "+inst.token)
		resp, err := testHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got api.MCPServersResponse
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		last = got.Servers
		for _, s := range got.Servers {
			if s.Name == name && s.State == api.MCPConnected {
				return s
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server %q never connected: %+v", name, last)
	return api.MCPServer{}
}
