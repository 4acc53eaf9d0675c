package tool

// The registry's tool names that the core, the policy and the dialects
// treat specially, declared once here in the contract every one of them
// imports.
const (
	// UseMCPTool is the tool every mcp__<server>__<tool> name is routed to.
	UseMCPTool = "use_mcp_tool"
	// MCPPrefix starts the names under which MCP tools are offered to
	// models (mcp__<server>__<tool>).
	MCPPrefix = "mcp__"
	// SubagentPrefix starts the name of every agent's tool
	// (use_subagent_<name>).
	SubagentPrefix = "use_subagent_"
	// JobStdinTool writes to a background job's standard input (Codex's
	// write_stdin maps onto it). It is also the name under which the audit
	// keeps what a client posts to POST .../jobs/{jid}/stdin: input to a
	// running shell is a command like any other, so it is kept where
	// commands are.
	JobStdinTool = "job_stdin"
)
