package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// newDialectServer is a real server over the default tools and dialects.
func newDialectServer(t *testing.T, cfg coordinator.Config, files map[string]string) (*testServer, string) {
	t.Helper()
	f := newFixture(t, fixtureOptions{files: files, config: cfg, server: Config{Token: testToken}})
	return &testServer{Server: f.ts, coord: f.coord, reg: f.reg}, f.dir
}

func toolNames(tools []api.ToolInfo) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func newSessionOf(t *testing.T, ts *testServer, body map[string]any) api.Session {
	t.Helper()
	return decodeBody[api.Session](t, ts.do(t, http.MethodPost, "/v1/sessions", body), http.StatusCreated)
}

func TestSessionDialect(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	t.Run("default is cline", func(t *testing.T) {
		if s := newSessionOf(t, ts, map[string]any{}); s.Dialect != api.DialectCline {
			t.Errorf("dialect = %q, want cline", s.Dialect)
		}
	})
	t.Run("created and patched", func(t *testing.T) {
		s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code"})
		if s.Dialect != api.DialectClaudeCode {
			t.Fatalf("dialect = %q", s.Dialect)
		}
		got := decodeBody[api.Session](t, ts.do(t, http.MethodPatch, "/v1/sessions/"+s.ID, map[string]any{"dialect": "anthropic"}), http.StatusOK)
		if got.Dialect != api.DialectAnthropic {
			t.Errorf("after PATCH dialect = %q", got.Dialect)
		}
	})
	for _, tc := range []struct {
		name, method, path string
		body               map[string]any
	}{
		{"unknown dialect", http.MethodPost, "/v1/sessions", map[string]any{"dialect": "gemini"}},
		{"default session keeps cline", http.MethodPatch, "/v1/sessions/default", map[string]any{"dialect": "claude_code"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := decodeBody[struct{ Error api.Error }](t, ts.do(t, tc.method, tc.path, tc.body), http.StatusBadRequest)
			if e.Error.Fields["dialect"] == "" {
				t.Errorf("error = %+v, want a dialect field", e.Error)
			}
		})
	}
}

// TestToolPools checks each dialect's pool: its own names, none of
// another dialect's, and none of the internal tools dialects map onto.
func TestToolPools(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	list := func(query string) []string {
		return toolNames(decodeBody[api.ToolsResponse](t, ts.do(t, http.MethodGet, "/v1/tools"+query, nil), http.StatusOK).Tools)
	}
	claude := []string{"Bash", "Glob", "Grep", "LS", "Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "TodoWrite", "BashOutput", "KillShell", "WebFetch"}
	internal := []string{"read_lines", "edit_text", "write_file", "glob_files", "grep_files", "list_tree", "todo_write", "background_shell"}
	cline := list("")
	for _, n := range append(append([]string{}, claude...), internal...) {
		if slices.Contains(cline, n) {
			t.Errorf("cline pool holds %s", n)
		}
	}
	if !slices.Contains(cline, "read_file") {
		t.Errorf("cline pool = %v, want read_file", cline)
	}
	cc := list("?dialect=claude_code")
	for _, n := range claude {
		if !slices.Contains(cc, n) {
			t.Errorf("claude_code pool %v lacks %s", cc, n)
		}
	}
	for _, n := range append([]string{"read_file", "execute_command", "WebSearch", "Task"}, internal...) {
		if slices.Contains(cc, n) {
			t.Errorf("claude_code pool holds %s (no web search, no agents configured)", n)
		}
	}
	s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "plan"})
	plan := list("?session=" + s.ID)
	for _, n := range []string{"Edit", "Write", "MultiEdit", "NotebookEdit"} {
		if slices.Contains(plan, n) {
			t.Errorf("plan-mode pool holds %s", n)
		}
	}
	if !slices.Contains(plan, "Bash") || !slices.Contains(plan, "Read") {
		t.Errorf("plan-mode pool = %v, want Bash and Read", plan)
	}
	e := decodeBody[struct{ Error api.Error }](t, ts.do(t, http.MethodGet, "/v1/tools?session="+s.ID+"&dialect=cline", nil), http.StatusBadRequest)
	if e.Error.Fields["dialect"] == "" {
		t.Errorf("a dialect other than the session's: %+v", e.Error)
	}
}

// TestUnknownToolNamesItsDialect: a name outside the session's pool is
// unknown_tool, with a hint naming the dialect that has it (a claude_code
// session answers a name no dialect has as Claude Code does).
func TestUnknownToolNamesItsDialect(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "a\n"})
	cc := newSessionOf(t, ts, map[string]any{"dialect": "claude_code"})
	for _, tc := range []struct {
		session, tool, hint string
		input               map[string]any
	}{
		{"default", "Read", `tool of the claude_code dialect, and this session speaks cline: create the session with "dialect": "claude_code"`, map[string]any{"file_path": "/a.txt"}},
		{cc.ID, "read_file", `tool of the cline dialect, and this session speaks claude_code`, map[string]any{"path": "a.txt"}},
		{"default", "read_lines", "No handler registered for tool: read_lines", map[string]any{"path": "a.txt"}},
		// Claude Code's words for a name no dialect has.
		{cc.ID, "edit_text", "<tool_use_error>Error: No such tool available: edit_text</tool_use_error>", map[string]any{"path": "a.txt"}},
	} {
		t.Run(tc.session+" "+tc.tool, func(t *testing.T) {
			got := decodeBody[api.MessageResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/"+tc.session+"/messages",
				assistant(toolUse("toolu_"+tc.tool, tc.tool, tc.input))), http.StatusOK)
			r := got.Message.Content[0]
			if got.Calls[0].Status != api.StatusUnknownTool || !strings.Contains(r.Content[0].Text, tc.hint) {
				t.Errorf("result = %s %q, want unknown_tool with %q", got.Calls[0].Status, r.Content[0].Text, tc.hint)
			}
		})
	}
}

// TestToolFormats renders a pool for the Chat Completions and Responses
// APIs, in the shapes of OpenAI's API reference (function tools:
// platform.openai.com/docs/api-reference/chat/create#tools and
// /responses/create#tools).
func TestToolFormats(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	chat := decodeBody[struct {
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}](t, ts.do(t, http.MethodGet, "/v1/tools?dialect=claude_code&format=openai", nil), http.StatusOK)
	if len(chat.Tools) == 0 || chat.Tools[0].Type != "function" || chat.Tools[0].Function.Name == "" || !json.Valid(chat.Tools[0].Function.Parameters) {
		t.Errorf("chat tools = %+v", chat.Tools)
	}
	resp := decodeBody[struct {
		Tools []map[string]any `json:"tools"`
	}](t, ts.do(t, http.MethodGet, "/v1/tools?format=openai-responses", nil), http.StatusOK)
	first := resp.Tools[0]
	if first["type"] != "function" || first["name"] != "read_file" || first["parameters"] == nil || first["function"] != nil {
		t.Errorf("responses tool = %v", first)
	}
	e := decodeBody[struct{ Error api.Error }](t, ts.do(t, http.MethodGet, "/v1/tools?format=xml", nil), http.StatusBadRequest)
	if e.Error.Fields["format"] == "" {
		t.Errorf("unknown format: %+v", e.Error)
	}
}

// TestMCPFacadeDialect: /mcp?dialect=claude_code offers Claude Code's pool
// and runs its calls in a session of that dialect.
func TestMCPFacadeDialect(t *testing.T) {
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "alpha\n"})
	cs, err := connectFacade(t, ts.URL+"/mcp?dialect=claude_code", testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "Read") || slices.Contains(names, "read_file") {
		t.Errorf("facade tools = %v, want Claude Code's", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Read", Arguments: map[string]any{"file_path": filepath.Join(dir, "a.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := mcpText(res); res.IsError || got != "1\talpha\n2\t" {
		t.Errorf("Read over /mcp = %q (error %v)", got, res.IsError)
	}
}

// callIn runs one tool_use in a session and returns its result text and
// status.
func callIn(t *testing.T, ts *testServer, sid, id, name string, input any) (string, api.CallStatus) {
	t.Helper()
	got := decodeBody[api.MessageResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/"+sid+"/messages", assistant(toolUse(id, name, input))), http.StatusOK)
	text := ""
	for _, c := range got.Message.Content[0].Content {
		text += c.Text
	}
	return text, got.Calls[0].Status
}

// TestBackgroundShells follows Claude Code's Bash run_in_background with
// BashOutput and KillShell (tools/BashTool/prompt.ts, BashOutputTool,
// KillShellTool): a shell that outlives its call, read incrementally,
// killed on request or with its session.
func TestBackgroundShells(t *testing.T) {
	ts, dir := newDialectServer(t, coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}, nil)
	s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code"})
	text, _ := callIn(t, ts, s.ID, "toolu_bg1", "Bash", map[string]any{"command": "echo first; sleep 0.2; echo second; echo oops >&2", "run_in_background": true})
	id, ok := strings.CutPrefix(text, "Command running in background with ID: ")
	if !ok {
		t.Fatalf("Bash in background answered %q", text)
	}
	var seen string
	deadline := time.Now().Add(20 * time.Second)
	for n := 0; !strings.Contains(seen, "<status>completed</status>"); n++ {
		if time.Now().After(deadline) {
			t.Fatalf("the shell did not complete; output so far %q", seen)
		}
		out, st := callIn(t, ts, s.ID, fmt.Sprintf("toolu_out%d", n), "BashOutput", map[string]any{"bash_id": id})
		if st != api.StatusSucceeded {
			t.Fatalf("BashOutput: %s %q", st, out)
		}
		seen += out
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Count(seen, "first") != 1 || strings.Count(seen, "second") != 1 || strings.Count(seen, "oops") != 1 || !strings.Contains(seen, "<exit_code>0</exit_code>") {
		t.Errorf("output read incrementally = %q, want each line once", seen)
	}

	marker := filepath.Join(dir, "alive")
	text, _ = callIn(t, ts, s.ID, "toolu_bg2", "Bash", map[string]any{"command": "while true; do touch " + marker + "; sleep 0.05; done", "run_in_background": true})
	long := strings.TrimPrefix(text, "Command running in background with ID: ")
	if out, st := callIn(t, ts, s.ID, "toolu_kill", "KillShell", map[string]any{"shell_id": long}); st != api.StatusSucceeded || !strings.Contains(out, "Successfully killed shell: "+long) {
		t.Fatalf("KillShell = %s %q", st, out)
	}
	if out, _ := callIn(t, ts, s.ID, "toolu_out_k", "BashOutput", map[string]any{"bash_id": long}); !strings.Contains(out, "<status>killed</status>") {
		t.Errorf("after KillShell: %q", out)
	}
	if out, st := callIn(t, ts, s.ID, "toolu_kill2", "KillShell", map[string]any{"shell_id": long}); st != api.StatusFailed || !strings.Contains(out, "not running") {
		t.Errorf("second KillShell = %s %q", st, out)
	}
	if out, st := callIn(t, ts, s.ID, "toolu_none", "BashOutput", map[string]any{"bash_id": "bash_99"}); st != api.StatusFailed || !strings.Contains(out, "No shell found") {
		t.Errorf("unknown shell = %s %q", st, out)
	}

	// A shell ends with its session.
	text, _ = callIn(t, ts, s.ID, "toolu_bg3", "Bash", map[string]any{"command": "sleep 60", "run_in_background": true})
	sess, err := ts.coord.Sessions().Get(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var job tool.Job
	for _, j := range sess.Jobs() {
		if j.ID() == strings.TrimPrefix(text, "Command running in background with ID: ") {
			job = j
		}
	}
	if job == nil {
		t.Fatalf("no job for %q", text)
	}
	if resp := ts.do(t, http.MethodDelete, "/v1/sessions/"+s.ID, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete = %d", resp.StatusCode)
	}
	select {
	case <-job.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the background shell outlived its session")
	}
}

// TestClaudeCodeRulesInEveryDialect: rules in Claude Code's syntax
// (docs.anthropic.com/en/docs/claude-code/iam) are the same policy for
// every dialect's calls.
func TestClaudeCodeRulesInEveryDialect(t *testing.T) {
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}
	cfg.Permissions.Deny = []string{"Bash(rm:*)", "Read(secret.txt)", "Edit(locked/**)"}
	ts, dir := newDialectServer(t, cfg, map[string]string{"secret.txt": "s3cret\n", "locked/a.txt": "a\n", "x.txt": "x\n"})
	cc := newSessionOf(t, ts, map[string]any{"dialect": "claude_code"})
	for i, tc := range []struct {
		session, tool string
		input         map[string]any
		want          api.CallStatus
	}{
		{cc.ID, "Bash", map[string]any{"command": "rm -f x.txt"}, api.StatusDenied},
		{cc.ID, "Bash", map[string]any{"command": "echo ok"}, api.StatusSucceeded},
		{cc.ID, "Read", map[string]any{"file_path": filepath.Join(dir, "secret.txt")}, api.StatusDenied},
		{cc.ID, "Grep", map[string]any{"pattern": "s3cret", "path": "secret.txt"}, api.StatusDenied},
		{cc.ID, "Write", map[string]any{"file_path": filepath.Join(dir, "locked", "b.txt"), "content": "b"}, api.StatusDenied},
		{"default", "read_file", map[string]any{"path": "secret.txt"}, api.StatusDenied},
		{"default", "execute_command", map[string]any{"command": "rm x.txt", "requires_approval": false}, api.StatusDenied},
		{"default", "write_to_file", map[string]any{"path": "locked/c.txt", "content": "c"}, api.StatusDenied},
	} {
		t.Run(tc.tool+" "+tc.session, func(t *testing.T) {
			out, st := callIn(t, ts, tc.session, fmt.Sprintf("toolu_rule%d", i), tc.tool, tc.input)
			if st != tc.want {
				t.Errorf("status = %s (%q), want %s", st, out, tc.want)
			}
		})
	}
}

// TestBareDenyShrinksDialectPools: a bare deny rule (managed or the
// session's) takes a tool out of a dialect's pool, as Claude Code's
// assembleToolPool filters tools a deny rule names outright; a deny rule
// with content leaves the tool listed.
func TestBareDenyShrinksDialectPools(t *testing.T) {
	cfg := coordinator.Config{}
	cfg.Permissions.Deny = []string{"WebFetch"}
	ts, _ := newDialectServer(t, cfg, nil)
	list := func(query string) []string {
		return toolNames(decodeBody[api.ToolsResponse](t, ts.do(t, http.MethodGet, "/v1/tools"+query, nil), http.StatusOK).Tools)
	}
	cc := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "permissions": map[string]any{"deny": []string{"Bash", "Read(.env)"}}})
	got := list("?session=" + cc.ID)
	for _, n := range []string{"Bash", "WebFetch"} {
		if slices.Contains(got, n) {
			t.Errorf("claude_code pool %v holds %s", got, n)
		}
	}
	if !slices.Contains(got, "Read") || !slices.Contains(got, "Edit") {
		t.Errorf("claude_code pool %v lacks Read or Edit", got)
	}
	if d := list("?dialect=claude_code"); slices.Contains(d, "WebFetch") || !slices.Contains(d, "Bash") {
		t.Errorf("?dialect=claude_code pool %v, want the managed deny only", d)
	}
	an := newSessionOf(t, ts, map[string]any{"dialect": "anthropic", "permissions": map[string]any{"deny": []string{"bash"}}})
	if got := list("?session=" + an.ID); !slices.Equal(got, []string{"str_replace_based_edit_tool"}) {
		t.Errorf("anthropic pool = %v, want the text editor only", got)
	}
}

// TestAnthropicWholeMessage posts a Message as the Messages API returns it
// (@anthropic-ai/sdk resources/messages/messages.d.ts, Message: type,
// model, stop_reason, stop_sequence, usage, container beside id, role and
// content; text blocks with citations, tool_use blocks with caller), as a
// client that hands over what it got does.
func TestAnthropicWholeMessage(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "alpha\n"})
	s := newSessionOf(t, ts, map[string]any{"dialect": "anthropic"})
	msg := map[string]any{"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{
			map[string]any{"type": "text", "text": "Looking.", "citations": nil},
			map[string]any{"type": "tool_use", "id": "toolu_w1", "name": "str_replace_based_edit_tool", "caller": map[string]any{"type": "direct"},
				"input": map[string]any{"command": "view", "path": "a.txt"}},
		},
		"stop_reason": "tool_use", "stop_sequence": nil, "stop_details": nil, "container": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
	got := decodeBody[api.MessageResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", msg), http.StatusOK)
	if len(got.Calls) != 1 || got.Calls[0].Status != api.StatusSucceeded || !strings.Contains(got.Message.Content[0].Content[0].Text, "alpha") {
		t.Errorf("answer = %+v", got)
	}
	for _, tc := range []struct {
		name   string
		change func()
	}{
		{"a misspelt field", func() { delete(msg, "type"); msg["stop_reasn"] = "tool_use" }},
		{"another type", func() { delete(msg, "stop_reasn"); msg["type"] = "completion" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.change()
			resp := ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", msg)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", resp.StatusCode)
			}
		})
	}
}
