package coordinator

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
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
		{"direct use_mcp_tool", use("m2", tool.UseMCPTool, map[string]any{"server_name": "github", "tool_name": "create_issue"}), api.StatusDenied},
		{"another server is not matched", use("m3", tool.UseMCPTool, map[string]any{"server_name": "docs", "tool_name": "search"}), api.StatusSucceeded},
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
