package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/mcphub"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// mcpTestServer is the MCP hub's test server binary.
func mcpTestServer(t *testing.T) string { return testbuild.Binary(t, testbuild.MCPTestServer) }

// mcpFixture is a coordinator with the default tools and a hub holding the
// test server as "test" (autoApprove: echo), under the given permissions.
func mcpFixture(t *testing.T, perms api.Permissions) (*coordinator.Coordinator, *coordinator.Session) {
	t.Helper()
	hub := mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{
		"test": {Command: mcpTestServer(t), AutoApprove: []string{"echo"}, Timeout: 5},
	}}, mcphub.Options{MinBackoff: 20 * time.Millisecond})
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	cfg := coordinator.DefaultConfig()
	cfg.Permissions = perms
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	coord := coordinator.New(coordinator.Options{Config: cfg, Workspace: ws, Tools: Default(), MCP: hub,
		Dialects: []tool.Dialect{testDialect(api.DialectClaudeCode)}})
	t.Cleanup(coord.Close)
	deadline := time.Now().Add(15 * time.Second)
	for len(hub.Tools()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("MCP test server never connected: %+v", hub.Servers())
		}
		time.Sleep(10 * time.Millisecond)
	}
	sess, err := coord.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		t.Fatal(err)
	}
	return coord, sess
}

func mcpUse(id, name string, input any) api.ToolUse {
	raw, _ := json.Marshal(input)
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: name, Input: raw}
}

func TestUseMCPTool(t *testing.T) {
	coord, sess := mcpFixture(t, api.Permissions{Allow: []string{"mcp__test__slow", "mcp__test__fail"}, Deny: []string{"mcp__test__crash"}})
	ctx := context.Background()

	t.Run("listed with its schema, denied tools left out", func(t *testing.T) {
		byName := map[string]api.ToolInfo{}
		for _, ti := range coord.Tools(sess) {
			byName[ti.Name] = ti
		}
		echo, ok := byName["mcp__test__echo"]
		if !ok || !strings.Contains(string(echo.InputSchema), `"text"`) {
			t.Errorf("mcp__test__echo = %+v (listed %v), want it with its input schema", echo, ok)
		}
		if _, ok := byName["mcp__test__crash"]; ok {
			t.Error("mcp__test__crash is listed despite a deny rule")
		}
	})
	t.Run("normalized name, auto-approved", func(t *testing.T) {
		res, rec := coord.Execute(ctx, sess, "", mcpUse("toolu_m1", "mcp__test__echo", map[string]any{"text": "hi"}))
		if rec.Status != api.StatusSucceeded || text(res) != "echo: hi" {
			t.Errorf("call = %s %q, want succeeded %q", rec.Status, text(res), "echo: hi")
		}
	})
	t.Run("arguments as a JSON string", func(t *testing.T) {
		res, rec := coord.Execute(ctx, sess, "", mcpUse("toolu_m2", "use_mcp_tool",
			map[string]any{"server_name": "test", "tool_name": "echo", "arguments": `{"text":"str"}`}))
		if rec.Status != api.StatusSucceeded || text(res) != "echo: str" {
			t.Errorf("call = %s %q, want succeeded %q", rec.Status, text(res), "echo: str")
		}
	})
	t.Run("arguments of the wrong kind", func(t *testing.T) {
		res, _ := coord.Execute(ctx, sess, "", mcpUse("toolu_m3", "use_mcp_tool",
			map[string]any{"server_name": "test", "tool_name": "echo", "arguments": []int{1}}))
		if !res.IsError || !strings.Contains(text(res), "an array") {
			t.Errorf("result = %q, want an is_error naming the array", text(res))
		}
	})
	t.Run("isError becomes is_error", func(t *testing.T) {
		res, _ := coord.Execute(ctx, sess, "", mcpUse("toolu_m4", "mcp__test__fail", map[string]any{}))
		if !res.IsError || !strings.Contains(text(res), "it broke") {
			t.Errorf("result = %q (is_error %v), want is_error with the message", text(res), res.IsError)
		}
	})
	t.Run("deny rule", func(t *testing.T) {
		_, rec := coord.Execute(ctx, sess, "", mcpUse("toolu_m5", "mcp__test__crash", map[string]any{}))
		if rec.Status != api.StatusDenied {
			t.Errorf("status = %s, want denied", rec.Status)
		}
	})
	t.Run("resource", func(t *testing.T) {
		res, rec := coord.Execute(ctx, sess, "", mcpUse("toolu_m6", "access_mcp_resource", map[string]any{"server_name": "test", "uri": "mem://hello"}))
		if rec.Status != api.StatusSucceeded || text(res) != "hello resource" {
			t.Errorf("resource = %s %q", rec.Status, text(res))
		}
	})
	t.Run("progress events, then cancel", func(t *testing.T) {
		done := make(chan api.CallRecord, 1)
		go func() {
			_, rec := coord.Execute(ctx, sess, "", mcpUse("toolu_slow", "mcp__test__slow", map[string]any{"steps": 1}))
			done <- rec
		}()
		waitEvent(t, sess, func(ev api.Event) bool {
			return ev.Type == api.EventToolOutput && ev.ToolUseID == "toolu_slow" && strings.Contains(ev.Chunk, "step 1")
		})
		if !sess.Cancel("toolu_slow", nil) {
			t.Fatal("Cancel found no running call")
		}
		if rec := receive(t, done); rec.Status != api.StatusCancelled {
			t.Errorf("status = %s, want cancelled", rec.Status)
		}
	})
}

func TestUseMCPToolWithoutServers(t *testing.T) {
	f := newFixture(t)
	res, _ := f.call(t, "use_mcp_tool", map[string]any{"server_name": "x", "tool_name": "y"})
	if !res.IsError || !strings.Contains(text(res), "No MCP servers") {
		t.Errorf("result = %q, want an is_error saying no servers are configured", text(res))
	}
}

// waitEvent reads the session's events until one matches.
func waitEvent(t *testing.T, sess *coordinator.Session, match func(api.Event) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	if _, err := sess.Events.WaitFor(ctx, 0, match); err != nil {
		t.Fatalf("waiting for the event: %v", err)
	}
}

// TestClineMCPNames calls MCP tools by the names Cline gives them
// (core/prompts/system-prompt/registry/ClineToolSet.ts: server.uid +
// "0mcp0" + tool; StreamResponseHandler.ts splits them back), against the
// real test server.
func TestClineMCPNames(t *testing.T) {
	coord, sess := mcpFixture(t, api.Permissions{Allow: []string{"mcp__test"}})
	ctx := context.Background()
	var uid string
	for _, s := range coord.MCP().Servers() {
		if s.Name == "test" {
			uid = s.UID
		}
	}
	if len(uid) != 6 || uid[0] != 'c' || uid != mcphub.UID("test") {
		t.Fatalf("uid of test = %q, want c and five characters, stable", uid)
	}
	for _, name := range []string{uid + "0mcp0echo", "test0mcp0echo"} {
		t.Run(name, func(t *testing.T) {
			res, rec := coord.Execute(ctx, sess, "", mcpUse("toolu_"+name, name, map[string]any{"text": "hi"}))
			if rec.Status != api.StatusSucceeded || text(res) != "echo: hi" {
				t.Errorf("call = %s %q, want succeeded %q", rec.Status, text(res), "echo: hi")
			}
		})
	}
	t.Run("an unknown key reaches no server", func(t *testing.T) {
		res, rec := coord.Execute(ctx, sess, "", mcpUse("toolu_c9", "czzzzz0mcp0echo", map[string]any{"text": "hi"}))
		if rec.Status == api.StatusSucceeded || !strings.Contains(text(res), "czzzzz") {
			t.Errorf("call = %s %q, want a failure naming the key", rec.Status, text(res))
		}
	})
	t.Run("the loop guard counts the real tool", func(t *testing.T) {
		// Three different tools with the same empty input are no loop;
		// the same tool under three name forms is.
		const warning = "has been called 3 times consecutively"
		for i, name := range []string{"mcp__test__fail", uid + "0mcp0traceparent", "test0mcp0fail"} {
			res, _ := coord.Execute(ctx, sess, "", mcpUse(fmt.Sprintf("toolu_d%d", i), name, map[string]any{}))
			if strings.Contains(text(res), warning) {
				t.Errorf("call %d (%s) warned: %q", i, name, text(res))
			}
		}
		var last string
		for i, name := range []string{"mcp__test__echo", uid + "0mcp0echo", "test0mcp0echo"} {
			res, _ := coord.Execute(ctx, sess, "", mcpUse(fmt.Sprintf("toolu_s%d", i), name, map[string]any{"text": "same"}))
			last = text(res)
		}
		if !strings.Contains(last, warning) {
			t.Errorf("third identical call = %q, want the loop warning", last)
		}
	})
}

// TestClineMCPResultText follows Cline's UseMcpToolHandler.execute
// (apps/vscode/src/core/task/tools/handlers/UseMcpToolHandler.ts, v4.0.12):
// "Error:\n" before a result the server flagged, the texts of text blocks
// and embedded resources (JSON.stringify(resource without blob, null, 2))
// joined by "\n\n", empty ones and audio left out, "(No response)" for
// nothing, images as blocks after the text (formatResponse.toolResult). A
// session in another dialect gets the server's blocks as they are.
func TestClineMCPResultText(t *testing.T) {
	coord, sess := mcpFixture(t, api.Permissions{Allow: []string{"mcp__test__parts"}})
	ctx := context.Background()
	const joined = "first\n\n{\n  \"uri\": \"mem://r\",\n  \"mimeType\": \"text/plain\",\n  \"text\": \"a <b> & c\"\n}\n\nsecond"
	cases := []struct {
		name    string
		input   map[string]any
		want    string
		isError bool
		images  int
	}{
		{"parts joined", map[string]any{}, joined, false, 1},
		{"error", map[string]any{"error": true}, "Error:\n" + joined, true, 1},
		{"no content", map[string]any{"none": true}, "(No response)", false, 0},
		{"error without content", map[string]any{"none": true, "error": true}, "Error:\n", true, 0},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := coord.Execute(ctx, sess, "", mcpUse(fmt.Sprintf("toolu_p%d", i), "use_mcp_tool",
				map[string]any{"server_name": "test", "tool_name": "parts", "arguments": c.input}))
			if len(res.Content) != 1+c.images || res.Content[0].Text != c.want || res.IsError != c.isError {
				t.Fatalf("result = %+v (is_error %v), want %q (is_error %v) and %d image(s)", res.Content, res.IsError, c.want, c.isError, c.images)
			}
			for _, img := range res.Content[1:] {
				if img.Type != api.TypeImage {
					t.Errorf("block after the text = %+v, want an image", img)
				}
			}
		})
	}
	t.Run("other dialects keep the blocks", func(t *testing.T) {
		sess.Update(api.UpdateSessionRequest{Dialect: api.DialectClaudeCode})
		defer sess.Update(api.UpdateSessionRequest{Dialect: api.DialectCline})
		res, _ := coord.Execute(ctx, sess, "", mcpUse("toolu_pc", "mcp__test__parts", map[string]any{"error": true}))
		if len(res.Content) < 4 || res.Content[0].Text != "first" || strings.HasPrefix(text(res), "Error:") || !res.IsError {
			t.Errorf("result = %+v, want the server's blocks, first one %q", res.Content, "first")
		}
	})
}

// TestClineTruncateMatchesNode checks clineTruncate against Cline's
// truncateContent and formatBytes (shared/content-limits.ts, v4.0.12) run
// under node, on texts built the same way on both sides.
func TestClineTruncateMatchesNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed as the oracle (test.sh installs nodejs)")
	}
	cases := []struct {
		unit  string
		count int
	}{{"a", 10}, {"a", 400 * 1024}, {"a", 400*1024 + 1}, {"ab", 300 * 1024}, {"€", 200 * 1024}, {"€x", 250 * 1024}, {"a", 3 << 20}}
	const js = `const [unit, count] = JSON.parse(process.argv[1]);
		const max = 400 * 1024;
		const fmt = b => b < 1024 ? b + " B" : b < 1024 * 1024 ? (b / 1024).toFixed(1) + " KB" : (b / (1024 * 1024)).toFixed(1) + " MB";
		const s = unit.repeat(count);
		const out = s.length <= max ? s : s.slice(0, max) + "\n\n---\n\n[FILE TRUNCATED: This content is " + fmt(s.length) +
			" but only the first " + fmt(max) + " is shown (" + fmt(s.length - max) +
			" truncated). Use search_files to find specific patterns, or execute_command with grep/head/tail for targeted reading.]";
		process.stdout.write(out);`
	for _, c := range cases {
		arg, _ := json.Marshal([]any{c.unit, c.count})
		want, err := exec.CommandContext(t.Context(), node, "-e", js, string(arg)).Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		if got := clineTruncate(strings.Repeat(c.unit, c.count)); got != string(want) {
			t.Errorf("%q x %d: got %d bytes ending %q, node %d bytes ending %q", c.unit, c.count,
				len(got), got[max(0, len(got)-200):], len(want), want[max(0, len(want)-200):])
		}
	}
}

// TestClineMCPCallError follows UseMcpToolHandler.execute's catch
// (apps/vscode/src/core/task/tools/handlers/UseMcpToolHandler.ts, v4.0.12):
// a call that fails at the protocol level (here the server exits mid-call)
// answers "Error executing MCP tool: " and the message, not wrapped as a
// tool error.
func TestClineMCPCallError(t *testing.T) {
	coord, sess := mcpFixture(t, api.Permissions{Allow: []string{"mcp__test__crash"}})
	res, rec := coord.Execute(context.Background(), sess, "", mcpUse("toolu_crash", "mcp__test__crash", map[string]any{}))
	got := text(res)
	if rec.Status != api.StatusFailed || rec.Error == nil || rec.Error.Code != api.ToolCodeMCPFailed || !res.IsError {
		t.Fatalf("call = %+v, want failed with %s", rec, api.ToolCodeMCPFailed)
	}
	if !strings.HasPrefix(got, "Error executing MCP tool: ") || strings.Contains(got, "<error>") {
		t.Errorf("result = %q, want Cline's unwrapped \"Error executing MCP tool: ...\"", got)
	}
}

// MCPNames, which the coordinator asks instead of reading the input's JSON
// again, gives what that read gives (encoding/json into the two fields):
// keys matched without regard to case, the last of repeated keys, escapes
// undone.
func TestUseMCPToolInputNamesAsTheJSONSays(t *testing.T) {
	for _, raw := range []string{
		`{"server_name":"github","tool_name":"create_issue","arguments":{"server_name":"x"}}`,
		`{"arguments":{},"server_name":"s","tool_name":"t"}`,
		`{"SERVER_NAME":"upper","Tool_Name":"mixed"}`,
		`{"server_name":"first","server_name":"second","tool_name":"t"}`,
		`{"server_name":"g\u0069t\"hub","tool_name":"a\\b"}`,
		`{"server_name":"","tool_name":"t","arguments":"{\"tool_name\":\"inner\"}"}`,
	} {
		var in UseMCPToolInput
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.DisallowUnknownFields() // as the coordinator decodes inputs
		if err := dec.Decode(&in); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var want struct {
			Server string `json:"server_name"`
			Tool   string `json:"tool_name"`
		}
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if server, tool := in.MCPNames(); server != want.Server || tool != want.Tool {
			t.Errorf("%s: MCPNames() = %q, %q; the JSON says %q, %q", raw, server, tool, want.Server, want.Tool)
		}
	}
}
