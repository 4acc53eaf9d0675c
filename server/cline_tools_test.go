package server

import (
	"net/http"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// Cline's tools that act on the conversation or the IDE (shared/tools.ts,
// ClineDefaultTool): the client runs them itself.
var clineClientSide = []string{"act_mode_respond", "condense", "focus_chain", "generate_explanation",
	"load_mcp_documentation", "new_task", "report_bug", "summarize_task", "use_skill", "web_search"}

func TestClientSideTools(t *testing.T) {
	f := newFixture(t, fixtureOptions{server: Config{Token: testToken}})
	c := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	t.Run("GET /v1/tools names them apart from the tools", func(t *testing.T) {
		got := decodeBody[api.ToolsResponse](t, c.do(t, "GET", "/v1/tools", nil), http.StatusOK)
		if !slices.Equal(got.ClientSide, clineClientSide) {
			t.Errorf("client_side = %v, want %v", got.ClientSide, clineClientSide)
		}
		for _, tool := range got.Tools {
			if slices.Contains(clineClientSide, tool.Name) {
				t.Errorf("client-side tool %s is listed among the tools", tool.Name)
			}
		}
	})
	for _, name := range clineClientSide {
		t.Run(name+" answers not_owned", func(t *testing.T) {
			got := decodeBody[api.ToolUseResponse](t, c.do(t, "POST", "/v1/tool_use",
				toolUse("toolu_"+name, name, map[string]any{"context": "x", "task_progress": "- [ ] x"})), http.StatusOK)
			if got.Call.Status != api.StatusFailed || got.Call.Error == nil || got.Call.Error.Code != api.ToolCodeNotOwned || !got.Result.IsError {
				t.Errorf("call = %+v, want failed with not_owned", got.Call)
			}
		})
	}
	// SubagentToolHandler.ts: with no subagents configured here, the
	// client may run use_subagents itself.
	t.Run("use_subagents without subagents answers not_owned", func(t *testing.T) {
		got := decodeBody[api.ToolUseResponse](t, c.do(t, "POST", "/v1/tool_use",
			toolUse("toolu_subagents", "use_subagents", map[string]any{"prompt_1": "x"})), http.StatusOK)
		if got.Call.Status != api.StatusFailed || got.Call.Error == nil || got.Call.Error.Code != api.ToolCodeNotOwned {
			t.Errorf("call = %+v, want failed with not_owned", got.Call)
		}
	})
	t.Run("a typo is still an unknown tool", func(t *testing.T) {
		got := decodeBody[api.ToolUseResponse](t, c.do(t, "POST", "/v1/tool_use", toolUse("toolu_typo", "new_taks", map[string]any{})), http.StatusOK)
		if got.Call.Status != api.StatusUnknownTool {
			t.Errorf("status = %s, want unknown_tool", got.Call.Status)
		}
	})
}
