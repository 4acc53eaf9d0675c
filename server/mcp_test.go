package server

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/mcphub"
)

// newMCPTestServer is a real server over the default tools in a workspace
// holding a.txt and secret.txt, with a read_file deny rule for the
// secret, and a hub whose one server cannot start; traffic is checked
// against openapi.yaml.
func newMCPTestServer(t *testing.T) (*testServer, *coordinator.Coordinator) {
	t.Helper()
	hub := mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{
		"broken": {Command: filepath.Join(t.TempDir(), "no-such-server")},
	}}, mcphub.Options{MinBackoff: time.Hour})
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	cfg := coordinator.DefaultConfig()
	cfg.Permissions = api.Permissions{Deny: []string{"read_file(secret.txt)"}}
	f := newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "hello from a\n", "secret.txt": "s3cret\n"},
		config: cfg, mcp: hub, server: Config{Token: testToken}})
	return &testServer{Server: f.ts, coord: f.coord, reg: f.reg, workspace: f.dir}, f.coord
}

func TestMCPServersRoute(t *testing.T) {
	ts, coord := newMCPTestServer(t)
	deadline := time.Now().Add(10 * time.Second)
	for coord.MCP().Servers()[0].LastError == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := decodeBody[api.MCPServersResponse](t, ts.do(t, http.MethodGet, "/v1/mcp/servers", nil), http.StatusOK)
	if len(got.Servers) != 1 || got.Servers[0].Name != "broken" || got.Servers[0].State == api.MCPConnected ||
		got.Servers[0].Transport != "stdio" || got.Servers[0].LastError == "" {
		t.Errorf("servers = %+v, want broken, stdio, not connected, with its last error", got.Servers)
	}
}

// bearer adds the token to every request of an MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connectFacade(t *testing.T, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Connect(ctx, tr, nil)
}

func mcpText(res *mcp.CallToolResult) string {
	out := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out += tc.Text
		}
	}
	return out
}

func TestMCPFacade(t *testing.T) {
	ts, coord := newMCPTestServer(t)
	cs, err := connectFacade(t, ts.URL+"/mcp", testToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	ctx := context.Background()

	t.Run("lists toolgate's tools", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, tool := range res.Tools {
			names[tool.Name] = true
		}
		if !names["read_file"] || !names["write_to_file"] {
			t.Errorf("tools = %v, want read_file and write_to_file", names)
		}
	})
	t.Run("read_file", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || !strings.Contains(mcpText(res), "hello from a") {
			t.Errorf("read_file = %q (is_error %v), want the file", mcpText(res), res.IsError)
		}
	})
	t.Run("denied by policy", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "secret.txt"}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || strings.Contains(mcpText(res), "s3cret") || !strings.Contains(mcpText(res), "Denied") {
			t.Errorf("read_file(secret.txt) = %q (is_error %v), want a denial", mcpText(res), res.IsError)
		}
	})
	t.Run("invalid input", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(mcpText(res), "path") {
			t.Errorf("read_file({}) = %q, want a validation error naming path", mcpText(res))
		}
	})
	t.Run("approval on the session's event stream", func(t *testing.T) {
		sess, err := coord.Sessions().Get(api.DefaultSessionID)
		if err != nil {
			t.Fatal(err)
		}
		type answer struct {
			res *mcp.CallToolResult
			err error
		}
		done := make(chan answer, 1)
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_to_file", Arguments: map[string]any{"path": "new.txt", "content": "x\n"}})
			done <- answer{res, err}
		}()
		id := awaitApproval(t, sess)
		if _, err := coord.Decide(sess, id, api.DecisionRequest{Decision: api.DecisionApprove}, "token"); err != nil {
			t.Fatal(err)
		}
		a := receive(t, done)
		if a.err != nil || a.res.IsError {
			t.Fatalf("approved write = %v %+v, want success", a.err, a.res)
		}
	})
}

// awaitApproval waits for a tool.awaiting_approval event and returns its
// call's id.
func awaitApproval(t *testing.T, sess *coordinator.Session) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ev, err := sess.Events.WaitFor(ctx, 0, func(ev api.Event) bool { return ev.Type == api.EventToolAwaitingApproval })
	if err != nil {
		t.Fatalf("no tool.awaiting_approval event: %v", err)
	}
	return ev.ToolUseID
}

func TestMCPFacadeGuards(t *testing.T) {
	ts, _ := newMCPTestServer(t)
	t.Run("no token", func(t *testing.T) {
		if _, err := connectFacade(t, ts.URL+"/mcp", ""); err == nil {
			t.Error("connected without a token")
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		if _, err := connectFacade(t, ts.URL+"/mcp", "nope"); err == nil {
			t.Error("connected with a wrong token")
		}
	})
	t.Run("foreign origin", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", "https://evil.example")
		resp, err := testHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("status = %d, want 403", resp.StatusCode)
		}
	})
}
