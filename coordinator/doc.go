// Package coordinator turns tool_use blocks into tool_result blocks. It owns
// the registry (tool name -> tool built by a factory), the per-call
// pipeline, sessions with their bounded event logs, policy (permission
// rules, ignore rules, modes, approvals), hooks, subagents and the ordering
// of a message's calls. It knows nothing of HTTP: the server package drives
// it. Tools are built against the small contract in package tool.
//
// The life of one call is Coordinator.runCall in pipeline.go, one stage a
// line: prepare (lookup, normalization, coercion, decode, validate) ->
// policy -> approval -> PreToolUse hooks -> (policy and approval again for
// an input a hook replaced) -> execute -> PostToolUse hooks -> loop guard
// -> record. State travels in one carrier, callState. Each stage is a named
// function in the file of its concept: policy in policy_stage.go, approval
// in approval.go, hooks in hooks_stage.go.
package coordinator
