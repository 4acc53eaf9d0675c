package policy

// The registry's names that rules treat specially. They are the
// coordinator's tool names (coordinator.useMCPTool, subagentPrefix), spelt
// here again because this package does not import the coordinator; the
// coordinator's policy tests (an mcp__ rule, a Task rule) fail when the
// two drift apart.
const (
	useMCPTool     = "use_mcp_tool"
	mcpPrefix      = "mcp__"
	subagentPrefix = "use_subagent_"
)
