package coordinator

import (
	"slices"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// TestPolicyKnowsTheToolNames: the policy treats use_mcp_tool, the
// subagent tools and job_stdin specially, under the names the tool
// contract declares (coordinator/tool/names.go); each is checked here
// through what the policy does with it.
func TestPolicyKnowsTheToolNames(t *testing.T) {
	rules, err := policy.ParseRules(api.Permissions{Deny: []string{"mcp__srv"}}, policy.LayerManaged)
	if err != nil {
		t.Fatal(err)
	}
	if !rules[0].MatchesName(&policy.Subject{Tool: tool.UseMCPTool, MCPServer: "srv", MCPTool: "x"}) {
		t.Errorf("an mcp__ rule does not name %s", tool.UseMCPTool)
	}
	if !slices.Contains(policy.RuleTools["Task"], tool.SubagentPrefix+"*") {
		t.Errorf("Task rules stand for %v, want %s*", policy.RuleTools["Task"], tool.SubagentPrefix)
	}
	if _, refused := policy.PlanModeRefusal(&tool.Tool{Name: tool.JobStdinTool}, &policy.Subject{Tool: tool.JobStdinTool}); !refused {
		t.Errorf("plan mode lets %s run", tool.JobStdinTool)
	}
}
