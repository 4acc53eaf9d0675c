package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestRuleNamingNoToolRefused: a rule whose tool part no dialect has
// ("Bsh(rm:*)") would be accepted and never match, so a deny rule with a
// typo would deny nothing. Session create and PATCH refuse it with a 400
// that names the rule and the nearest tool names. Names from any dialect,
// Claude Code's rule names, patterns and MCP rules pass.
func TestRuleNamingNoToolRefused(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	sid := newSessionOf(t, ts, map[string]any{}).ID
	for _, tc := range []struct {
		rules api.Permissions
		field string
		want  []string
	}{
		{api.Permissions{Deny: []string{"Bash(git push:*)", "Bsh(rm:*)"}}, "permissions.deny[1]", []string{`"Bsh(rm:*)"`, "Bash"}},
		{api.Permissions{Allow: []string{"raed_file"}}, "permissions.allow[0]", []string{"raed_file", "read_file"}},
		{api.Permissions{Ask: []string{"WebFetch", "Wirte(src/**)"}}, "permissions.ask[1]", []string{"Wirte", "Write"}},
		{api.Permissions{Deny: []string{"exex_*"}}, "permissions.deny[0]", []string{"exex_*"}},
	} {
		t.Run(strings.Join(append(append(tc.rules.Deny, tc.rules.Ask...), tc.rules.Allow...), " "), func(t *testing.T) {
			for _, req := range []struct{ method, path string }{{http.MethodPost, "/v1/sessions"}, {http.MethodPatch, "/v1/sessions/" + sid}} {
				e := decodeBody[api.ErrorResponse](t, ts.do(t, req.method, req.path, map[string]any{"permissions": tc.rules}), http.StatusBadRequest)
				got := e.Error.Fields[tc.field]
				for _, w := range tc.want {
					if !strings.Contains(got, w) {
						t.Errorf("%s %s: field %s = %q, want it to contain %q (error %+v)", req.method, req.path, tc.field, got, w, e.Error)
					}
				}
				if len(e.Error.Fields) != 1 {
					t.Errorf("%s: fields = %v, want only the bad rule", req.method, e.Error.Fields)
				}
			}
		})
	}
	t.Run("every dialect's names and patterns pass", func(t *testing.T) {
		ok := api.Permissions{
			Deny:  []string{"Bash(rm:*)", "bash", "execute_command(curl:*)", "mcp__github__delete_repo", "Task"},
			Ask:   []string{"str_replace_based_edit_tool", "WebFetch(domain:example.com)", "MultiEdit", "write_*"},
			Allow: []string{"Read(src/**)", "read_file", "Edit(docs/**)", "TodoWrite", "use_subagent_reviewer", "ask_followup_question"},
		}
		got := decodeBody[api.Session](t, ts.do(t, http.MethodPatch, "/v1/sessions/"+sid, map[string]any{"permissions": ok}), http.StatusOK)
		if len(got.Permissions.Deny) != len(ok.Deny) {
			t.Errorf("permissions = %+v", got.Permissions)
		}
	})
}

// TestSessionPermissionModes: sessions take Claude Code's permission
// modes on create and PATCH; bypassPermissions only when the config
// allows it; an unknown mode is a 400 naming the mode field.
func TestSessionPermissionModes(t *testing.T) {
	off, _ := newDialectServer(t, coordinator.Config{}, nil)
	cfg := coordinator.Config{}
	cfg.AllowBypassPermissions = true
	on, _ := newDialectServer(t, cfg, nil)
	for _, m := range []api.Mode{api.ModeDefault, api.ModeAcceptEdits, api.ModePlan, api.ModeAct} {
		s := newSessionOf(t, off, map[string]any{"mode": m, "dialect": "claude_code"})
		if s.Mode != m {
			t.Errorf("created with mode %s, got %s", m, s.Mode)
		}
	}
	s := newSessionOf(t, off, map[string]any{"mode": "default"})
	got := decodeBody[api.Session](t, off.do(t, http.MethodPatch, "/v1/sessions/"+s.ID, map[string]any{"mode": "acceptEdits"}), http.StatusOK)
	if got.Mode != api.ModeAcceptEdits {
		t.Errorf("after PATCH mode = %s", got.Mode)
	}
	for _, tc := range []struct {
		name, method, path string
		body               map[string]any
		want               string
	}{
		{"bypass refused on create", http.MethodPost, "/v1/sessions", map[string]any{"mode": "bypassPermissions"}, "allow_bypass_permissions"},
		{"bypass refused on PATCH", http.MethodPatch, "/v1/sessions/" + s.ID, map[string]any{"mode": "bypassPermissions"}, "allow_bypass_permissions"},
		{"unknown mode", http.MethodPost, "/v1/sessions", map[string]any{"mode": "dontAsk"}, "acceptEdits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := decodeBody[api.ErrorResponse](t, off.do(t, tc.method, tc.path, tc.body), http.StatusBadRequest)
			if !strings.Contains(e.Error.Fields["mode"], tc.want) {
				t.Errorf("error = %+v, want the mode field to say %q", e.Error, tc.want)
			}
		})
	}
	if got := decodeBody[api.Session](t, off.do(t, http.MethodGet, "/v1/sessions/"+s.ID, nil), http.StatusOK); got.Mode != api.ModeAcceptEdits {
		t.Errorf("a refused PATCH changed the mode to %s", got.Mode)
	}
	t.Run("bypass allowed by the config", func(t *testing.T) {
		b := newSessionOf(t, on, map[string]any{"mode": "bypassPermissions"})
		if b.Mode != api.ModeBypassPermissions {
			t.Errorf("mode = %s", b.Mode)
		}
	})
}

// TestAcceptEditsOverHTTP: a claude_code session in acceptEdits mode runs
// Write, filesystem commands and a read-only command's output
// redirection in the workspace without a prompt, and still asks for
// other commands (Claude Code's permission-modes page; the redirections
// as internal/conformance/claudecode's probe measures Claude Code 2.1).
func TestAcceptEditsOverHTTP(t *testing.T) {
	ts, dir := newDialectServer(t, coordinator.Config{}, nil)
	s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "acceptEdits"})
	for _, tc := range []struct {
		name      string
		tool      string
		input     map[string]any
		want      api.CallStatus
		wantAsked int
	}{
		{"Write a new file", "Write", map[string]any{"file_path": filepath.Join(dir, "new.txt"), "content": "x\n"}, api.StatusSucceeded, 0},
		{"mkdir and touch", "Bash", map[string]any{"command": "mkdir -p out && touch out/keep"}, api.StatusSucceeded, 0},
		{"a redirection into the workspace", "Bash", map[string]any{"command": "ls -R > listing.txt"}, api.StatusSucceeded, 0},
		{"another command asks", "Bash", map[string]any{"command": "curl -s http://127.0.0.1:9/ > page.html"}, api.StatusDenied, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, st, asked := runDeciding(t, ts, s.ID, "toolu_ae"+strings.ReplaceAll(tc.name, " ", "_"), tc.tool, tc.input, api.DecisionReject)
			if st != tc.want || len(asked) != tc.wantAsked {
				t.Errorf("status %s, asked %q (%s); want %s, asked %d times", st, asked, text, tc.want, tc.wantAsked)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "keep")); err != nil {
		t.Errorf("mkdir/touch did not run: %v", err)
	}
}

// TestAnthropicToolNamesInRules: a rule may name the Messages API's client
// tools as its models call them (bash, str_replace_based_edit_tool), and
// they are accepted, so they must match those tools' calls.
func TestAnthropicToolNamesInRules(t *testing.T) {
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}
	ts, _ := newDialectServer(t, cfg, map[string]string{"a.txt": "a\n"})
	s := newSessionOf(t, ts, map[string]any{"dialect": "anthropic", "permissions": map[string]any{"deny": []string{"bash", "str_replace_based_edit_tool"}}})
	for i, tc := range []struct {
		tool  string
		input map[string]any
	}{
		{"bash", map[string]any{"command": "echo hi"}},
		{"str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.txt"}},
	} {
		text, st := callIn(t, ts, s.ID, "toolu_an"+string(rune('a'+i)), tc.tool, tc.input)
		if st != api.StatusDenied || !strings.Contains(text, `deny rule "`+tc.tool+`"`) {
			t.Errorf("%s: status %s (%q), want denied by the rule naming it", tc.tool, st, text)
		}
	}
}
