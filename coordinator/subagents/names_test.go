package subagents

import "testing"

// TestSubagentToolName follows Cline's buildSubagentToolName
// (core/task/tools/subagent/SubagentToolName.ts); the long names' hashes
// are what that function gives under node (32-bit FNV-1a in base 36,
// first six).
func TestSubagentToolName(t *testing.T) {
	long := "A very long agent name that goes on and on well past the limit of sixty-four"
	for _, tc := range []struct{ in, want string }{
		{"Code Reviewer", "use_subagent_code_reviewer"},
		{"  code-reviewer  ", "use_subagent_code_reviewer"},
		{"Test__Runner!!v2", "use_subagent_test_runner_v2"},
		{"___", "use_subagent_agent"},
		{"Ünïcode agent", "use_subagent_n_code_agent"},
		{long, "use_subagent_a_very_long_agent_name_that_goes_on_and_on_w_178elr"},
	} {
		if got := ToolName(tc.in); got != tc.want || len(got) > 64 {
			t.Errorf("ToolName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Values of Cline's hashString, computed with node.
	for in, want := range map[string]string{"": "ztntfp", "a": "1r9wi7g", "Code Reviewer": "111n2wn"} {
		if got := fnvHash36(in); got != want {
			t.Errorf("fnvHash36(%q) = %q, want %q", in, got, want)
		}
	}
}
