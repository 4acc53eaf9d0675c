package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/mcphub"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// mcpTestServerBin is the hub's test MCP server (a real go-sdk server).
func mcpTestServerBin(t testing.TB) string { return testbuild.Binary(t, testbuild.MCPTestServer) }

// newPeerServer is a server whose hub has a live stdio server "live" (echo
// auto-approved; every other tool asks) and a disabled one "off", under
// the default policy.
func newPeerServer(t *testing.T) (*testServer, *coordinator.Coordinator) {
	t.Helper()
	hub := mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{
		"live": {Command: mcpTestServerBin(t), AutoApprove: []string{"echo"}},
		"off":  {Command: mcpTestServerBin(t), Disabled: true},
	}}, mcphub.Options{})
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	f := newFixture(t, fixtureOptions{config: coordinator.DefaultConfig(), mcp: hub, server: Config{Token: testToken}})
	deadline := time.Now().Add(15 * time.Second)
	for hub.Servers()[0].State != api.MCPConnected {
		if time.Now().After(deadline) {
			t.Fatalf("live MCP server not connected: %+v", hub.Servers())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return &testServer{Server: f.ts, coord: f.coord, reg: f.reg}, f.coord
}

// TestMCPUnreachableFailsAtOnce: a call to an MCP server that is not
// configured or is disabled, or to a tool a connected server does not
// list, fails at once; it never waits for an approval (under the default
// policy each of these would ask first).
func TestMCPUnreachableFailsAtOnce(t *testing.T) {
	ts, _ := newPeerServer(t)
	cases := []struct {
		name       string
		use        api.ToolUse
		status     api.CallStatus
		code, text string
	}{
		{"unknown server", toolUse("u1", "mcp__nope__echo", map[string]any{}), api.StatusUnknownTool, api.ToolCodeUnknownTool, `No MCP server named "nope"`},
		{"disabled server", toolUse("u2", "mcp__off__slow", map[string]any{}), api.StatusFailed, api.ToolCodeMCPUnavailable, "disabled"},
		{"unknown tool", toolUse("u3", "mcp__live__nope", map[string]any{}), api.StatusUnknownTool, api.ToolCodeUnknownTool, `has no tool "nope"`},
		{"use_mcp_tool, unknown server", toolUse("u4", "use_mcp_tool", map[string]any{"server_name": "nope", "tool_name": "x"}), api.StatusUnknownTool, api.ToolCodeUnknownTool, "configured: live, off"},
		{"resource of a disabled server", toolUse("u5", "access_mcp_resource", map[string]any{"server_name": "off", "uri": "mem://hello"}), api.StatusFailed, api.ToolCodeMCPUnavailable, "disabled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Waiting for an approval would outlast this deadline by far.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := ts.Client().Do(ts.request(t, http.MethodPost, "/v1/tool_use", c.use).WithContext(ctx))
			if err != nil {
				t.Fatalf("no answer (waiting for an approval?): %v", err)
			}
			got := decodeBody[api.ToolUseResponse](t, resp, http.StatusOK)
			if got.Call.Status != c.status || got.Call.Error == nil || got.Call.Error.Code != c.code ||
				!strings.Contains(got.Call.Error.Message, c.text) {
				t.Errorf("call = %+v %+v, want %s/%s mentioning %q", got.Call, got.Call.Error, c.status, c.code, c.text)
			}
		})
	}
	t.Run("a listed tool still runs", func(t *testing.T) {
		got := decodeBody[api.ToolUseResponse](t, ts.do(t, http.MethodPost, "/v1/tool_use", toolUse("u6", "mcp__live__echo", map[string]any{"text": "hi"})), http.StatusOK)
		if got.Call.Status != api.StatusSucceeded || !strings.Contains(got.Result.Content[0].Text, "echo: hi") {
			t.Errorf("echo = %+v %+v, want it to succeed", got.Call, got.Result)
		}
	})
}

// TestMCPToolMetrics: each MCP tool a configured server lists is counted
// under its own tool label mcp__<server>__<tool>, whichever name the call
// used; names no configured server lists share the "other" series.
func TestMCPToolMetrics(t *testing.T) {
	ts, _ := newPeerServer(t)
	calls := []api.ToolUse{
		toolUse("m1", "mcp__live__echo", map[string]any{"text": "a"}),
		toolUse("m2", "use_mcp_tool", map[string]any{"server_name": "live", "tool_name": "echo", "arguments": map[string]any{"text": "b"}}),
		toolUse("m3", "mcp__nope__echo", map[string]any{}),
		toolUse("m4", "mcp__live__nope_"+strings.Repeat("x", 8), map[string]any{}),
	}
	for _, use := range calls {
		resp := ts.do(t, http.MethodPost, "/v1/tool_use", use)
		resp.Body.Close()
	}
	resp := ts.do(t, http.MethodGet, "/v1/tools", nil) // listing makes the listed tools' series
	resp.Body.Close()

	series := callSeries(t, ts)
	want := map[string]float64{
		"mcp__live__echo/succeeded": 2,
		"other/unknown_tool":        2,
		"use_mcp_tool/succeeded":    0,
		"mcp__live__slow/succeeded": 0, // listed, not called: at zero
	}
	for k, v := range want {
		if got, ok := series[k]; !ok || got != v {
			t.Errorf("toolgate_tool_calls_total{%s} = %v (present %v), want %v", k, got, ok, v)
		}
	}
	for k := range series {
		if strings.Contains(k, "nope") {
			t.Errorf("series %s for a name no server lists", k)
		}
	}
}

// callSeries reads toolgate_tool_calls_total as "tool/status" -> value.
func callSeries(t *testing.T, ts *testServer) map[string]float64 {
	t.Helper()
	mfs, err := ts.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "toolgate_tool_calls_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var tool, status string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "tool":
					tool = l.GetValue()
				case "status":
					status = l.GetValue()
				}
			}
			out[tool+"/"+status] += m.GetCounter().GetValue() // summed over dialects
		}
	}
	return out
}

// TestMCPServersShowWhyAServerFailed: GET /v1/mcp/servers shows a stdio
// server that failed to start with its exit code and the tail of its
// stderr, not only "client is closing: EOF".
func TestMCPServersShowWhyAServerFailed(t *testing.T) {
	hub := mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{
		"gh": {Command: mcpTestServerBin(t), Args: []string{"-fail-start", "fatal: GITHUB_TOKEN is not set"}},
	}}, mcphub.Options{MinBackoff: time.Hour})
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	f := newFixture(t, fixtureOptions{config: coordinator.DefaultConfig(), mcp: hub, server: Config{Token: testToken}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	var got api.MCPServersResponse
	deadline := time.Now().Add(15 * time.Second)
	for {
		got = decodeBody[api.MCPServersResponse](t, ts.do(t, http.MethodGet, "/v1/mcp/servers", nil), http.StatusOK)
		if len(got.Servers) == 1 && got.Servers[0].ExitCode != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no exit code within 15s: %+v", got.Servers)
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := got.Servers[0]
	if *st.ExitCode != 3 || !strings.Contains(st.StderrTail, "fatal: GITHUB_TOKEN is not set") ||
		!strings.Contains(st.LastError, "GITHUB_TOKEN is not set") {
		t.Errorf("server = %+v (exit %d), want exit code 3 and the stderr tail naming GITHUB_TOKEN", st, *st.ExitCode)
	}
}
