package coordinator

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
)

// TestSessionRulesCannotWiden checks that a session's allow rules lose to
// the managed deny and ask rules, and are refused when the config forbids
// them.
func TestSessionRulesCannotWiden(t *testing.T) {
	managed := api.Permissions{Deny: []string{"execute_command(curl:*)", "read_file(.env)"}, Ask: []string{"execute_command(git push:*)"}}
	p := newTestPolicy(t, Config{Permissions: managed}, map[string]string{".env": "k"})
	s := p.session(t, api.Permissions{Allow: []string{"execute_command", "read_file", "execute_command(git push:*)", "execute_command(curl *)"}})
	tests := []struct {
		name string
		use  api.ToolUse
		want string
	}{
		{"managed deny beats session bare allow", use("l1", "execute_command", cmd("curl x")), "deny"},
		{"managed ask beats session allow", use("l2", "execute_command", cmd("git push origin")), "ask"},
		{"managed path deny beats session allow", use("l3", "read_file", map[string]any{"path": ".env"}), "deny"},
		{"session bare allow otherwise applies", use("l4", "execute_command", cmd("touch x")), "allow"},
		{"session bare allow never approves risks", use("l5", "execute_command", cmd("touch $(id)")), "ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, text := p.decideOnly(t, s, tt.use)
			if got != tt.want {
				t.Errorf("got %s, want %s (%s)", got, tt.want, text)
			}
			if got != "allow" && !strings.Contains(text, "managed policy") && tt.want != "ask" {
				t.Errorf("refusal %q does not name the managed layer", text)
			}
		})
	}

	t.Run("forbid_session_allow", func(t *testing.T) {
		cfg := Config{PolicyConfig: PolicyConfig{ForbidSessionAllow: true}}
		p := newTestPolicy(t, cfg, nil)
		if err := p.c.CheckSessionPermissions(api.Permissions{Allow: []string{"execute_command"}}); err == nil {
			t.Errorf("session allow rules accepted, want refused")
		}
		// Rules set around the check are ignored too.
		s := p.session(t, api.Permissions{Allow: []string{"execute_command"}})
		if got, _, text := p.decideOnly(t, s, use("f1", "execute_command", cmd("touch x"))); got != "ask" {
			t.Errorf("got %s, want ask (%s)", got, text)
		}
	})

	t.Run("allow_all", func(t *testing.T) {
		cfg := Config{Permissions: api.Permissions{Deny: []string{"execute_command(rm:*)"}}, PolicyConfig: PolicyConfig{AllowAll: true}}
		p := newTestPolicy(t, cfg, nil)
		s := p.session(t, api.Permissions{})
		for line, want := range map[string]string{"touch x": "allow", "echo a && rm x": "deny", "cat /etc/hostname": "ask"} {
			if got, _, text := p.decideOnly(t, s, use("a_"+line, "execute_command", cmd(line))); got != want {
				t.Errorf("%q: got %s, want %s (%s)", line, got, want, text)
			}
		}
		got, _, _ := p.decideOnly(t, s, use("a_w", "write_to_file", map[string]any{"path": "x.txt", "content": "x"}))
		if got != "allow" {
			t.Errorf("write under allow_all: got %s, want allow", got)
		}
	})
}

// TestProtectedFiles checks that writes to files that run code or change
// policy always ask, even when rules allow every write.
func TestProtectedFiles(t *testing.T) {
	cfg := Config{PolicyConfig: PolicyConfig{AllowAll: true, IgnoreFiles: []string{"more.ignore"}, ProtectedFiles: []string{"toolgate.json"}}}
	p := newTestPolicy(t, cfg, nil)
	s := p.session(t, api.Permissions{Allow: []string{"write_to_file", "execute_command"}})
	for _, path := range []string{".git/hooks/pre-commit", ".git/config", ".vscode/tasks.json", ".clineignore", "more.ignore",
		".vscode/mcp.json", "sub/cline_mcp_settings.json", "toolgate.json", "x/../.clineignore"} {
		t.Run(path, func(t *testing.T) {
			got, _, text := p.decideOnly(t, s, use("p_"+path, "write_to_file", map[string]any{"path": path, "content": "x"}))
			if got != "ask" {
				t.Errorf("write %s: got %s, want ask (%s)", path, got, text)
			}
		})
	}
	t.Run("command", func(t *testing.T) {
		if got, _, text := p.decideOnly(t, s, use("p_cmd", "execute_command", cmd("cp evil .git/hooks/pre-commit"))); got != "ask" {
			t.Errorf("got %s, want ask (%s)", got, text)
		}
	})
	t.Run("config file by absolute path", func(t *testing.T) {
		p := newTestPolicy(t, Config{PolicyConfig: PolicyConfig{AllowAll: true}}, nil)
		p.c.policy.Protected = policy.NewProtected(p.c.workspace, nil, []string{p.dir + "/conf/toolgate.json"})
		s := p.session(t, api.Permissions{})
		if got, _, _ := p.decideOnly(t, s, use("p_abs", "write_to_file", map[string]any{"path": "conf/toolgate.json", "content": "x"})); got != "ask" {
			t.Errorf("got %s, want ask", got)
		}
	})
}

// TestToolsList checks that tools denied outright and tools plan mode
// forbids are left out of a session's tool list.
func TestToolsList(t *testing.T) {
	p := newTestPolicy(t, Config{Permissions: api.Permissions{Deny: []string{"use_mcp_tool", "read_file(.env)"}}}, nil)
	s := p.session(t, api.Permissions{Deny: []string{"execute_command"}})
	names := func(s *Session) map[string]bool {
		out := map[string]bool{}
		for _, ti := range p.c.Tools(s) {
			out[ti.Name] = true
		}
		return out
	}
	got := names(s)
	for name, want := range map[string]bool{"use_mcp_tool": false, "execute_command": false, "read_file": true, "write_to_file": true} {
		if got[name] != want {
			t.Errorf("session list has %s: got %v, want %v", name, got[name], want)
		}
	}
	if !names(nil)["execute_command"] {
		t.Errorf("list without session: execute_command missing")
	}
	s.Update(api.UpdateSessionRequest{Mode: api.ModePlan})
	if names(s)["write_to_file"] {
		t.Errorf("plan mode list has write_to_file")
	}
}
