package mcphub

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// testServer is the test MCP server's binary.
func testServer(t testing.TB) string { return testbuild.Binary(t, testbuild.MCPTestServer) }

// startHub starts a hub on the settings and closes it when the test ends.
func startHub(t *testing.T, s Settings) *Hub {
	t.Helper()
	h := New(s, Options{MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	h.Start(context.Background())
	t.Cleanup(h.Close)
	return h
}

// waitFor polls cond until it holds or a deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitConnected waits until the named server is connected with at least
// the given number of reconnects.
func waitConnected(t *testing.T, h *Hub, name string, reconnects int) {
	t.Helper()
	waitFor(t, name+" connected", func() bool {
		for _, s := range h.Servers() {
			if s.Name == name && s.State == Connected && s.Reconnects >= reconnects {
				return true
			}
		}
		return false
	})
}

// stdioSettings configures the test server over stdio as "test".
func stdioSettings(t *testing.T, extra ...string) (Settings, string) {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "cancelled")
	args := append([]string{"-cancelled", marker}, extra...)
	return Settings{MCPServers: map[string]ServerConfig{
		"test": {Command: testServer(t), Args: args, AutoApprove: []string{"echo"}, Timeout: 1},
	}}, marker
}

// textOf is the text of a tool result's text contents.
func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	out := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out += tc.Text
		}
	}
	return out
}
