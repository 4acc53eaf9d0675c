package server

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// listedTools returns GET /v1/tools?session=sid by name.
func (f *flowServer) listedTools(t *testing.T, sid string) map[string]api.ToolInfo {
	t.Helper()
	var resp api.ToolsResponse
	if code := f.call(t, http.MethodGet, "/v1/tools?session="+sid, nil, &resp); code != http.StatusOK {
		t.Fatalf("GET /v1/tools: got %d, want 200", code)
	}
	out := map[string]api.ToolInfo{}
	for _, tool := range resp.Tools {
		out[tool.Name] = tool
	}
	return out
}

// waitTools polls the tool list until ok holds, failing after a deadline:
// agent-file changes reach toolgate through file notifications, which
// arrive a moment after the write.
func (f *flowServer) waitTools(t *testing.T, sid, what string, ok func(map[string]api.ToolInfo) bool) map[string]api.ToolInfo {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		tools := f.listedTools(t, sid)
		if ok(tools) {
			return tools
		}
		if time.Now().After(deadline) {
			var listed []string
			for name, tool := range tools {
				listed = append(listed, name+": "+tool.Description)
			}
			t.Fatalf("tool list never showed %s; it lists:\n%s", what, strings.Join(listed, "\n"))
		}
		<-tick.C
	}
}

func description(name, want string) func(map[string]api.ToolInfo) bool {
	return func(tools map[string]api.ToolInfo) bool { return strings.Contains(tools[name].Description, want) }
}

func TestAgentDirectoryWatched(t *testing.T) {
	hr, runnerURL := newHTTPRunner(t)
	f, agents := newSubagentServerWith(t, coordinator.SubagentConfig{URL: runnerURL})
	sid := f.session(t, api.Permissions{})
	path := filepath.Join(agents, "reader.md")
	echo := func(t *testing.T, id string) api.Event {
		t.Helper()
		ev := next(t, f.sseMessage(t, sid, toolUse(id, "use_subagent_reader", map[string]any{"prompt": "echo"})), api.EventToolFinished)
		if ev.Call.Status != api.StatusUnknownTool {
			receive(t, hr.requests)
			receive(t, hr.headers)
		}
		return ev
	}

	t.Run("an added file is listed before any call to it", func(t *testing.T) {
		writeAgent(t, agents, "reader.md", "name: reader\ndescription: Reads code, v1", "Prompt one.")
		tools := f.waitTools(t, sid, "use_subagent_reader v1", description("use_subagent_reader", "v1"))
		if _, ok := tools[coordinator.UseSubagents]; !ok {
			t.Errorf("use_subagents is not listed: %v", tools)
		}
	})
	t.Run("the MCP facade lists it too", func(t *testing.T) {
		cs, err := connectFacade(t, f.url+"/mcp", flowToken)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tool := range res.Tools {
			found = found || tool.Name == "use_subagent_reader"
		}
		if !found {
			t.Errorf("the facade does not list use_subagent_reader")
		}
	})
	t.Run("a change that keeps size and mtime is seen", func(t *testing.T) {
		if out := texts(*echo(t, "w1").Result); out != "agent=reader system=Prompt one.\n" {
			t.Fatalf("before the change: %q", out)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		writeAgent(t, agents, "reader.md", "name: reader\ndescription: Reads code, v2", "Prompt two.")
		if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
		f.waitTools(t, sid, "use_subagent_reader v2", description("use_subagent_reader", "v2"))
		if out := texts(*echo(t, "w2").Result); out != "agent=reader system=Prompt two.\n" {
			t.Errorf("after the change: %q, want the new system prompt", out)
		}
	})
	t.Run("a deleted file is unlisted and its tool gone", func(t *testing.T) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		f.waitTools(t, sid, "no use_subagent_reader", func(tools map[string]api.ToolInfo) bool {
			_, ok := tools["use_subagent_reader"]
			return !ok
		})
		if ev := echo(t, "w3"); ev.Call.Status != api.StatusUnknownTool {
			t.Errorf("status = %s, want unknown_tool", ev.Call.Status)
		}
	})
	t.Run("a file renamed into the directory is seen", func(t *testing.T) {
		tmp := filepath.Join(t.TempDir(), "x.md")
		if err := os.WriteFile(tmp, []byte("---\nname: mover\ndescription: Moved in\n---\nMoved.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(agents, "mover.md")); err != nil {
			t.Skipf("rename across directories: %v", err)
		}
		f.waitTools(t, sid, "use_subagent_mover", description("use_subagent_mover", "Moved in"))
	})
}
