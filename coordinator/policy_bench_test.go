package coordinator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// BenchmarkPolicyStage measures the whole policy stage (subject, ignore
// rules, permission decision) for a file call and a 200-command chain.
func BenchmarkPolicyStage(b *testing.B) {
	dir := b.TempDir()
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	r := &ran{}
	c := New(Options{Workspace: ws, Tools: policyTools(r), Config: Config{Permissions: api.Permissions{
		Deny:  []string{"execute_command(rm:*)", "read_file(.env)"},
		Allow: []string{"execute_command(echo *)", "read_file(src/**)"},
	}}})
	defer c.Close()
	s, _ := c.Sessions().Create(api.ModeAct, api.Permissions{})
	// A session with rules of its own, as a client brings them: parsed
	// when they change, not on every call.
	var own api.Permissions
	for i := range 20 {
		own.Deny = append(own.Deny, fmt.Sprintf("read_file(secret%d/**)", i))
		own.Allow = append(own.Allow, fmt.Sprintf("execute_command(tool%d *)", i))
	}
	withRules, _ := c.Sessions().Create(api.ModeAct, own)
	for name, u := range map[string]api.ToolUse{
		"read_file": use("b1", "read_file", map[string]any{"path": "src/a/b.go"}),
		"chain_200": use("b2", "execute_command", cmd(strings.Repeat("echo ok && ", 199)+"echo end")),
	} {
		t, _ := c.registry.lookup(u.Name)
		in, err := DecodeInput(t, c.validate, u.Input)
		if err != nil {
			b.Fatal(err)
		}
		for _, sess := range []struct {
			name string
			s    *Session
		}{{"", s}, {"/session_rules=40", withRules}} {
			b.Run(name+sess.name, func(b *testing.B) {
				for b.Loop() {
					if out, _ := c.authorize(sess.s, t, in, u.Input, nil); out != nil {
						b.Fatalf("denied: %s", firstText(out.result))
					}
				}
			})
		}
	}
}
