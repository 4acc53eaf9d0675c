package coordinator

import (
	"slices"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// TestPolicyKnowsTheToolNames: package policy spells the coordinator's
// use_mcp_tool, subagent and job_stdin names again (policy/names.go);
// each is checked here through what the policy does with it.
func TestPolicyKnowsTheToolNames(t *testing.T) {
	rules, err := policy.ParseRules(api.Permissions{Deny: []string{"mcp__srv"}}, policy.LayerManaged)
	if err != nil {
		t.Fatal(err)
	}
	if !rules[0].MatchesName(&policy.Subject{Tool: UseMCPTool, MCPServer: "srv", MCPTool: "x"}) {
		t.Errorf("an mcp__ rule does not name %s", UseMCPTool)
	}
	if !slices.Contains(policy.RuleTools["Task"], SubagentPrefix+"*") {
		t.Errorf("Task rules stand for %v, want %s*", policy.RuleTools["Task"], SubagentPrefix)
	}
	if _, refused := policy.PlanModeRefusal(&tool.Tool{Name: JobStdinTool}, &policy.Subject{Tool: JobStdinTool}); !refused {
		t.Errorf("plan mode lets %s run", JobStdinTool)
	}
}
