package policy

// The registry's names that rules treat specially. They are the
// coordinator's tool names (coordinator.UseMCPTool, SubagentPrefix,
// JobStdinTool), spelt here again because this package does not import
// the coordinator; coordinator/policy_names_test.go fails when the two
// drift apart.
const (
	useMCPTool     = "use_mcp_tool"
	mcpPrefix      = "mcp__"
	subagentPrefix = "use_subagent_"
	jobStdinTool   = "job_stdin"
)
