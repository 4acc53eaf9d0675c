package coordinator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/dialect/cline"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/mcphub"
)

// fileIn and cmdIn are the inputs of the test tools.
type fileIn struct {
	Path    string `json:"path" validate:"required"`
	Content string `json:"content"`
}

type cmdIn struct {
	Command          string `json:"command" validate:"required"`
	RequiresApproval bool   `json:"requires_approval"`
	Cwd              string `json:"cwd"`
}

type mcpIn struct {
	Server string          `json:"server_name"`
	Tool   string          `json:"tool_name"`
	Args   json.RawMessage `json:"arguments"`
}

// ran records which calls reached their handler.
type ran struct {
	mu  sync.Mutex
	ids []string
}

func (r *ran) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
}

func (r *ran) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.ids {
		if x == id {
			return true
		}
	}
	return false
}

// policyTools are stand-ins for the real tools with the same declarations:
// which paths they touch, whether they write, which command they run.
func policyTools(r *ran) []tool.Registration {
	fileTool := func(writes bool) tool.Factory {
		return func(name string, env tool.Env) *tool.Tool {
			return NewTool(tool.Spec[fileIn]{
				Name: name, Writes: writes,
				Run: func(_ context.Context, c *tool.Call, in *fileIn) (tool.Result, error) {
					r.add(c.ToolUseID)
					return tool.TextResult("ok " + in.Path), nil
				},
				Paths: func(in *fileIn) []string { return []string{in.Path} },
			})
		}
	}
	return []tool.Registration{
		{Name: "read_file", Factory: fileTool(false)},
		{Name: "write_to_file", Factory: fileTool(true)},
		{Name: "list_files", Factory: func(name string, env tool.Env) *tool.Tool {
			return NewTool(tool.Spec[fileIn]{
				Name: name,
				Run: func(_ context.Context, c *tool.Call, in *fileIn) (tool.Result, error) {
					r.add(c.ToolUseID)
					var kept []string
					n := 0
					for _, f := range []string{".env", "a.txt", "secret/", "secret/x"} {
						if c.Exclude(f, f[len(f)-1] == '/') {
							n++
							continue
						}
						kept = append(kept, f)
					}
					b, _ := json.Marshal(kept)
					return tool.TextResult(string(b) + "\n" + tool.IgnoredNote(n)), nil
				},
				Paths: func(in *fileIn) []string { return []string{in.Path} },
				Walks: true,
			})
		}},
		{Name: "execute_command", Factory: func(name string, env tool.Env) *tool.Tool {
			return NewTool(tool.Spec[cmdIn]{
				Name: name,
				Run: func(_ context.Context, c *tool.Call, in *cmdIn) (tool.Result, error) {
					r.add(c.ToolUseID)
					return tool.TextResult("ran " + in.Command), nil
				},
				Command: func(in *cmdIn) tool.CommandLine {
					return tool.CommandLine{Command: in.Command, RequiresApproval: in.RequiresApproval, Cwd: in.Cwd}
				},
			})
		}},
		{Name: tool.UseMCPTool, Factory: func(name string, env tool.Env) *tool.Tool {
			return NewTool(tool.Spec[mcpIn]{
				Name: name,
				Run: func(_ context.Context, c *tool.Call, in *mcpIn) (tool.Result, error) {
					r.add(c.ToolUseID)
					return tool.TextResult("mcp"), nil
				},
			})
		}},
	}
}

// policyHub configures the MCP servers the policy tests name, never
// started: calls to them pass the prepare step's check (their tools are
// not known yet) and reach the policy.
func policyHub() *mcphub.Hub {
	servers := map[string]mcphub.ServerConfig{}
	for _, name := range []string{"github", "evil", "docs", "s"} {
		servers[name] = mcphub.ServerConfig{Command: "unused"}
	}
	return mcphub.New(mcphub.Settings{MCPServers: servers}, mcphub.Options{})
}

// testPolicy is a coordinator over a temporary workspace holding files.
type testPolicy struct {
	c   *Coordinator
	dir string
	ran *ran
	reg *prometheus.Registry // the coordinator's metrics
}

// newTestPolicy builds a coordinator over a workspace holding files, with
// the stand-in tools (policyTools) and any extra ones.
func newTestPolicy(t *testing.T, cfg Config, files map[string]string, extra ...tool.Registration) *testPolicy {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, reg := &ran{}, prometheus.NewRegistry()
	c := New(Options{Config: cfg, Workspace: ws, Tools: append(policyTools(r), extra...), MCP: policyHub(), Dialects: []tool.Dialect{cline.Dialect(), testClaudeCode()}, Registerer: reg,
		MCPAutoApprove: func(server, tool string) bool { return server == "docs" && tool == "search" }})
	t.Cleanup(func() { c.Close(); ws.Close() })
	return &testPolicy{c: c, dir: ws.Dir, ran: r, reg: reg}
}

// session creates a session with its own rules.
func (p *testPolicy) session(t *testing.T, perms api.Permissions) *Session {
	t.Helper()
	s, err := p.c.Sessions().Create(api.ModeAct, perms)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func use(id, name string, input any) api.ToolUse {
	b, _ := json.Marshal(input)
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: name, Input: b}
}

func cmd(line string) map[string]any { return map[string]any{"command": line} }

// decideOnly runs a call with a short approval timeout and reports its
// decision: allow (ran), ask (it waited for approval) or deny.
func (p *testPolicy) decideOnly(t *testing.T, s *Session, u api.ToolUse) (string, api.CallRecord, string) {
	t.Helper()
	done := make(chan struct{})
	var res api.ToolResult
	var rec api.CallRecord
	go func() {
		defer close(done)
		res, rec = p.c.Execute(context.Background(), s, "", u)
	}()
	select {
	case <-done:
	case <-waitState(s, u.ID, api.StateAwaitingApproval, done):
		if _, err := p.c.Decide(s, u.ID, api.DecisionRequest{Decision: api.DecisionReject}, "token"); err != nil {
			t.Fatalf("reject %s: %v", u.ID, err)
		}
		receive(t, done)
		return "ask", rec, resultText(res)
	case <-time.After(receiveLimit):
		t.Fatalf("%s neither finished nor waited for approval within %v", u.ID, receiveLimit)
	}
	switch {
	case rec.Status == api.StatusDenied:
		return "deny", rec, resultText(res)
	case p.ran.has(u.ID):
		return "allow", rec, resultText(res)
	}
	return "error", rec, resultText(res)
}

// waitState is closed once the call reaches the state; it gives up when
// stop is closed or after a deadline, never closing then.
func waitState(s *Session, id string, state api.CallState, stop <-chan struct{}) <-chan struct{} {
	ch := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	go func() {
		defer cancel()
		select {
		case <-stop:
		case <-ctx.Done():
		}
	}()
	go func() {
		defer cancel()
		if _, err := s.Events.WaitFor(ctx, 0, func(ev api.Event) bool {
			return ev.ToolUseID == id && ev.Call != nil && ev.Call.State == state
		}); err == nil {
			close(ch)
		}
	}()
	return ch
}

func resultText(r api.ToolResult) string {
	s := ""
	for _, c := range r.Content {
		s += c.Text + "\n"
	}
	return s
}

// testClaudeCode stands in for the claude_code dialect: its Write maps
// onto write_to_file with the same input, so tests can tell Claude Code's
// pipeline order from Cline's on the same tool.
func testClaudeCode() tool.Dialect {
	return tool.Dialect{Name: api.DialectClaudeCode, Tools: []*tool.DialectTool{tool.NewDialectTool(tool.DialectSpec[fileIn]{
		Name: "Write", Targets: []string{"write_to_file"},
		Map: func(_ tool.MapEnv, in *fileIn) (tool.Mapping, error) {
			return tool.Mapping{Tool: "write_to_file", Input: *in}, nil
		},
	})}}
}

// claudeCodeSession creates a claude_code session with its own rules.
func (p *testPolicy) claudeCodeSession(t *testing.T, perms api.Permissions) *Session {
	t.Helper()
	s := p.session(t, perms)
	s.Update(api.UpdateSessionRequest{Dialect: api.DialectClaudeCode})
	return s
}
