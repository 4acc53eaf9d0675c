package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestSubagentNamesAndErrors: agent files get Cline's tool names
// (core/task/tools/subagent/SubagentToolName.ts buildSubagentToolName); an
// agent whose name gives a tool name another agent has gets "_2", as
// AgentConfigLoader.ts rebuildDynamicToolMappings gives it; a file that
// gives no tool is named with its reason in GET /v1/tools.
func TestSubagentNamesAndErrors(t *testing.T) {
	f, agents := newSubagentServer(t)
	writeAgent(t, agents, "a-reviewer.md", "name: Code Reviewer\ndescription: Reviews code", "Review.")
	writeAgent(t, agents, "b-clash.md", "name: code-reviewer\ndescription: Same tool name", "Clash.")
	writeAgent(t, agents, "c-broken.md", "name: [unclosed\ndescription: x", "Broken.")
	writeAgent(t, agents, "d-same.md", "name: CODE REVIEWER\ndescription: Same agent name", "Same.")
	var list api.ToolsResponse
	sid := f.session(t, api.Permissions{})
	f.waitTools(t, sid, "use_subagent_code_reviewer_2", func(tools map[string]api.ToolInfo) bool {
		_, ok := tools["use_subagent_code_reviewer_2"]
		return ok
	})
	if code := f.call(t, http.MethodGet, "/v1/tools", nil, &list); code != http.StatusOK {
		t.Fatalf("GET /v1/tools = %d", code)
	}
	var names []string
	for _, ti := range list.Tools {
		if strings.HasPrefix(ti.Name, "use_subagent_") {
			names = append(names, ti.Name)
		}
	}
	if want := []string{"use_subagent_code_reviewer", "use_subagent_code_reviewer_2"}; !slices.Equal(names, want) {
		t.Errorf("subagent tools = %v, want %v", names, want)
	}
	if len(list.Errors) != 2 {
		t.Fatalf("errors = %+v, want the broken file and the second agent named Code Reviewer", list.Errors)
	}
	if e := list.Errors[0]; e.Source != "c-broken.md" || e.Error == "" || strings.Contains(e.Error, agents) {
		t.Errorf("broken-file error = %+v, want a reason without the directory's path", e)
	}
	if e := list.Errors[1]; e.Source != "d-same.md" || !strings.Contains(e.Error, "a-reviewer.md") {
		t.Errorf("same-name error = %+v", e)
	}
	ev2 := next(t, f.sseMessage(t, sid, toolUse("sr2", "use_subagent_code_reviewer_2", map[string]any{"prompt": "check"})), api.EventToolFinished)
	if out := texts(*ev2.Result); !strings.Contains(out, "agent=code-reviewer prompt=check") {
		t.Errorf("the _2 tool did not run the second agent:\n%s", out)
	}
	ev := next(t, f.sseMessage(t, sid, toolUse("sr1", "use_subagent_code_reviewer", map[string]any{"prompt": "check"})), api.EventToolFinished)
	if out := texts(*ev.Result); !strings.Contains(out, "agent=Code Reviewer prompt=check") {
		t.Errorf("the first file's agent did not run:\n%s", out)
	}
}
