package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestMCPPostAcceptingJSONOnly: a plain HTTP client (Postman sends
// Accept: application/json; some send no Accept) can post an MCP
// initialize and read the answer; a client that names both types is
// served as before.
func TestMCPPostAcceptingJSONOnly(t *testing.T) {
	f := scopeServer(t)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"postman","version":"1"}}}`
	for _, accept := range []string{"application/json", "", "application/json, text/event-stream"} {
		t.Run("accept "+accept, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", f.url+"/mcp", strings.NewReader(initialize))
			req.Header.Set("Authorization", "Bearer "+flowToken)
			req.Header.Set("Content-Type", "application/json")
			if accept != "" {
				req.Header.Set("Accept", accept)
			}
			resp, err := f.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"serverInfo"`) {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
		})
	}
}
