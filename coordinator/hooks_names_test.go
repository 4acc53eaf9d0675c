package coordinator

import (
	"context"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

func TestHookMatchersSeeMCPNames(t *testing.T) {
	scripts := t.TempDir()
	deny := writeHook(t, scripts, "deny", `echo 'no github writes' >&2; exit 2`)
	p, s := hookCase(t, pre("mcp__github__.*", command(deny)), nil)
	cases := []struct {
		name       string
		use        api.ToolUse
		wantStatus api.CallStatus
	}{
		{"mcp__ name", use("m1", "mcp__github__create_issue", map[string]any{}), api.StatusDenied},
		{"direct use_mcp_tool", use("m2", UseMCPTool, map[string]any{"server_name": "github", "tool_name": "create_issue"}), api.StatusDenied},
		{"another server is not matched", use("m3", UseMCPTool, map[string]any{"server_name": "docs", "tool_name": "search"}), api.StatusSucceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, rec := run(t, p, s, tc.use)
			if rec.Status != tc.wantStatus {
				t.Fatalf("status = %s (%q), want %s", rec.Status, resultText(res), tc.wantStatus)
			}
			if tc.wantStatus == api.StatusDenied && !strings.Contains(resultText(res), "no github writes") {
				t.Errorf("result = %q, want the hook's reason", resultText(res))
			}
		})
	}
}

// approveAll runs a call, approves every approval it asks for and
// reports how many there were.
func approveAll(t *testing.T, p *testPolicy, s *Session, u api.ToolUse) (api.ToolResult, api.CallRecord, int) {
	t.Helper()
	ctx, done := context.WithCancel(context.Background())
	var res api.ToolResult
	var rec api.CallRecord
	go func() {
		defer done()
		res, rec = p.c.Execute(context.Background(), s, "", u)
	}()
	asked := 0
	var after int64
	for {
		ev, err := s.Events.WaitFor(ctx, after, func(ev api.Event) bool {
			return ev.ToolUseID == u.ID && ev.Type == api.EventToolAwaitingApproval
		})
		if err != nil {
			return res, rec, asked
		}
		after = ev.ID
		asked++
		if _, err := p.c.Decide(s, u.ID, api.DecisionRequest{Decision: api.DecisionApprove}); err != nil {
			t.Fatalf("approve %s: %v", u.ID, err)
		}
	}
}

func TestHookAskAfterApproval(t *testing.T) {
	scripts := t.TempDir()
	ask := writeHook(t, scripts, "ask", `echo '{"permissionDecision":"ask","permissionDecisionReason":"double-check"}'`)
	deny := writeHook(t, scripts, "deny", `echo 'hook says no' >&2; exit 2`)
	cases := []struct {
		name       string
		hook       string
		perms      api.Permissions
		wantStatus api.CallStatus
		wantAsked  int
	}{
		{"policy asked and the user approved: the hook does not ask again", ask, api.Permissions{}, api.StatusSucceeded, 1},
		{"policy allowed: the hook asks", ask, api.Permissions{Allow: []string{"write_to_file"}}, api.StatusSucceeded, 1},
		{"a hook deny still wins over the approval", deny, api.Permissions{}, api.StatusDenied, 1},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{AgentConfig: AgentConfig{Hooks: pre("write_to_file", command(tc.hook))}}
			cfg.Sandbox.Writable = []string{scripts} // shows the scripts under the sandbox's private /tmp
			p := newTestPolicy(t, cfg, nil)
			s := p.session(t, tc.perms)
			id := "k" + string(rune('a'+i))
			res, rec, asked := approveAll(t, p, s, use(id, "write_to_file", map[string]any{"path": "a.txt", "content": "x"}))
			if rec.Status != tc.wantStatus {
				t.Fatalf("status = %s (%q), want %s", rec.Status, resultText(res), tc.wantStatus)
			}
			if asked != tc.wantAsked {
				t.Errorf("asked %d times, want %d", asked, tc.wantAsked)
			}
		})
	}
}
