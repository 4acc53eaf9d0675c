package coordinator

import (
	"errors"
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// TestPermissionModes: Claude Code's permission modes
// (code.claude.com/docs/en/permission-modes) on top of the rules. default
// (Cline's act) asks for edits; acceptEdits lets edits of workspace files
// and the filesystem commands mkdir, touch, mv and cp run without a prompt
// but still asks for other commands; bypassPermissions
// runs what the defaults and risky command lines would ask for; plan
// refuses edits. In every mode deny and ask rules, and protected files,
// decide as before.
func TestPermissionModes(t *testing.T) {
	perms := api.Permissions{Deny: []string{"write_to_file(denied.txt)"}, Ask: []string{"execute_command(git push:*)", "write_to_file(asked.txt)"}}
	calls := []struct {
		name string
		use  api.ToolUse
		want map[api.Mode]string // decision by mode
	}{
		{"edit", use("", "write_to_file", map[string]any{"path": "src/a.txt", "content": "x"}),
			map[api.Mode]string{api.ModeDefault: "ask", api.ModeAct: "ask", api.ModeAcceptEdits: "allow", api.ModeBypassPermissions: "allow", api.ModePlan: "deny"}},
		{"read", use("", "read_file", map[string]any{"path": "src/a.txt"}),
			map[api.Mode]string{api.ModeDefault: "allow", api.ModeAcceptEdits: "allow", api.ModeBypassPermissions: "allow", api.ModePlan: "allow"}},
		{"command", use("", "execute_command", cmd("make build")),
			map[api.Mode]string{api.ModeDefault: "ask", api.ModeAcceptEdits: "ask", api.ModeBypassPermissions: "allow", api.ModePlan: "deny"}},
		{"filesystem commands", use("", "execute_command", cmd("mkdir -p build/out && touch build/out/.keep && cp src/a.txt build/ && mv build/a.txt build/b.txt")),
			map[api.Mode]string{api.ModeDefault: "ask", api.ModeAcceptEdits: "allow", api.ModeBypassPermissions: "allow"}},
		{"a filesystem command beside another", use("", "execute_command", cmd("mkdir build && make")),
			map[api.Mode]string{api.ModeAcceptEdits: "ask"}},
		{"a filesystem command outside the workspace", use("", "execute_command", cmd("cp src/a.txt /etc/a.txt")),
			map[api.Mode]string{api.ModeAcceptEdits: "ask", api.ModeBypassPermissions: "ask"}},
		{"a filesystem command onto a protected file", use("", "execute_command", cmd("cp src/a.txt .vscode/tasks.json")),
			map[api.Mode]string{api.ModeAcceptEdits: "ask"}},
		{"risky command line", use("", "execute_command", cmd(`eval "$CMD"`)),
			map[api.Mode]string{api.ModeDefault: "ask", api.ModeAcceptEdits: "ask", api.ModeBypassPermissions: "allow"}},
		{"MCP tool", use("", tool.UseMCPTool, map[string]any{"server_name": "github", "tool_name": "create_issue"}),
			map[api.Mode]string{api.ModeDefault: "ask", api.ModeAcceptEdits: "ask", api.ModeBypassPermissions: "allow"}},
		{"deny rule", use("", "write_to_file", map[string]any{"path": "denied.txt", "content": "x"}),
			map[api.Mode]string{api.ModeAcceptEdits: "deny", api.ModeBypassPermissions: "deny"}},
		{"ask rule on an edit", use("", "write_to_file", map[string]any{"path": "asked.txt", "content": "x"}),
			map[api.Mode]string{api.ModeAcceptEdits: "ask", api.ModeBypassPermissions: "ask"}},
		{"ask rule on a command", use("", "execute_command", cmd("git push origin main")),
			map[api.Mode]string{api.ModeBypassPermissions: "ask"}},
		{"protected file", use("", "write_to_file", map[string]any{"path": ".vscode/tasks.json", "content": "{}"}),
			map[api.Mode]string{api.ModeAcceptEdits: "ask", api.ModeBypassPermissions: "ask"}},
	}
	p := newTestPolicy(t, Config{PolicyConfig: PolicyConfig{AllowBypassPermissions: true}}, map[string]string{"src/a.txt": "a"})
	n := 0
	for _, c := range calls {
		for mode, want := range c.want {
			t.Run(fmt.Sprintf("%s in %s", c.name, mode), func(t *testing.T) {
				s := p.session(t, perms)
				if err := p.c.CheckMode(mode); err != nil {
					t.Fatal(err)
				}
				s.Update(api.UpdateSessionRequest{Mode: mode})
				n++
				u := c.use
				u.ID = fmt.Sprintf("m%d", n)
				if got, rec, text := p.decideOnly(t, s, u); got != want {
					t.Errorf("got %s (%s %q), want %s", got, rec.Status, text, want)
				}
			})
		}
	}
}

// TestCheckMode: an unknown mode, and bypassPermissions while the
// managed policy does not allow it, are refused with the mode field named.
func TestCheckMode(t *testing.T) {
	off := newTestPolicy(t, Config{}, nil)
	on := newTestPolicy(t, Config{PolicyConfig: PolicyConfig{AllowBypassPermissions: true}}, nil)
	for _, tc := range []struct {
		name string
		p    *testPolicy
		mode api.Mode
		ok   bool
	}{
		{"acceptEdits", off, api.ModeAcceptEdits, true},
		{"default", off, api.ModeDefault, true},
		{"act", off, api.ModeAct, true},
		{"plan", off, api.ModePlan, true},
		{"bypass refused by default", off, api.ModeBypassPermissions, false},
		{"bypass allowed by the config", on, api.ModeBypassPermissions, true},
		{"unknown", on, "yolo", false},
		{"case matters, as in Claude Code's settings", on, "acceptedits", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.c.CheckMode(tc.mode)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckMode(%q) = %v, want ok=%v", tc.mode, err, tc.ok)
			}
			var ae *api.Error
			if err != nil && (!errors.As(err, &ae) || ae.Fields["mode"] == "") {
				t.Errorf("error %v names no mode field", err)
			}
		})
	}
}
