// Package coordinator turns tool_use blocks into tool_result blocks. It owns
// the registry (tool name -> tool built by a factory), the per-call
// pipeline, sessions (their bounded event logs are package eventlog),
// the policy stage (the rules and the decision are package policy; the
// ignore files, approvals and the rejection cascade are here), hooks (run
// by package hooks), subagents (package subagents, which reaches the
// coordinator through its Host) and the ordering of a message's calls. It
// knows nothing of HTTP: the server package drives it. Tools are built
// against the small contract in package tool.
//
// The life of one call is Coordinator.runCall in pipeline.go, one stage a
// line: prepare (lookup, normalization, coercion, decode, validate) ->
// policy -> approval -> PreToolUse hooks -> (policy and approval again for
// an input a hook replaced) -> execute -> PostToolUse hooks -> loop guard
// -> record. State travels in one carrier, callState. Each stage is a named
// function in the file of its concept: policy in policy_stage.go, approval
// in approval.go, hooks in hooks_stage.go.
//
// Files are named by concern, one package, each type in the file of its
// concept:
//
//	pipeline*.go  the stages of one call: prepare, coerce, validate, loop
//	              guard, task_progress, request id
//	policy*.go    the policy stage (it asks package policy for a verdict),
//	              the ignore files, the policy's config and start-up, the
//	              names of the command tools, a session's rejections
//	approval*.go  asking the user and remembering answers
//	hooks_stage.go the PreToolUse/PostToolUse stages (the hooks' config
//	              and runner are package hooks)
//	record*.go    the tool_result, the store, the audit log, restore
//	session*.go   sessions, their table, kept output, answers, drain, revert
//	message*.go   assistant messages, streaming and partial previews
//	schedule.go   the order and concurrency of a message's calls
//	subagent_host.go the subagents' config section and Host (the tools,
//	              agent files, runners and scoped tokens are package
//	              subagents)
//	mcp_*.go      MCP servers as tools and their names
//	tools_*.go    the registry, and NewTool: tool.NewTool with the check
//	              registration makes of its validate tags
//	dialect*.go   the dialect edges (translate in, reword out) and the
//	              texts of the coordinator's own answers in Cline's words;
//	              the dialects are packages under dialect/
//	config*.go    the managed config and its sections
//	metrics*.go   metrics and tracing
package coordinator
