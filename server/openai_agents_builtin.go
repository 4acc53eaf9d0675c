package server

import (
	"encoding/json"

	"github.com/toolgate/toolgate/api"
)

// The Agents SDK's own items for the built-in shell and apply_patch tools
// (@openai/agents-core 0.20 dist/types/protocol: ShellCallItem,
// ApplyPatchCallItem), which a run holds and hands to its tools: the
// fields in camel case (callId, action.timeoutMs, action.maxOutputLength,
// operation.moveTo). They run as the API's items do and are answered with
// the SDK's result items (ShellCallResultItem, ApplyPatchCallResultItem),
// which the client appends to its run's history as they are.

// agentsShellAction is a ShellCallItem's action.
type agentsShellAction struct {
	Commands        []string `json:"commands"`
	TimeoutMS       *int64   `json:"timeoutMs"`
	MaxOutputLength *int     `json:"maxOutputLength"`
}

// agentsShellResult is the SDK's ShellCallResultItem.
type agentsShellResult struct {
	Type            string               `json:"type"`
	CallID          string               `json:"callId"`
	Status          string               `json:"status"`
	MaxOutputLength *int                 `json:"maxOutputLength,omitempty"`
	Output          []agentsShellContent `json:"output"`
}

// agentsShellContent is one command's output; its outcome is
// {"type":"exit","exitCode":N} or {"type":"timeout"}.
type agentsShellContent struct {
	Stdout  string         `json:"stdout"`
	Stderr  string         `json:"stderr"`
	Outcome map[string]any `json:"outcome"`
}

// agentsApplyPatchResult is the SDK's ApplyPatchCallResultItem.
type agentsApplyPatchResult struct {
	Type   string `json:"type"`
	CallID string `json:"callId"`
	Status string `json:"status"`
	Output string `json:"output"`
}

// agentsBuiltinRun runs an SDK shell_call or apply_patch_call item as
// the API's item of the same call, and words the answer in the SDK's
// shape.
func agentsBuiltinRun(i int, head responsesItemHead, raw json.RawMessage) (*openAIRun, error) {
	var run *openAIRun
	var err error
	if head.Type == "shell_call" {
		var item struct {
			Action *agentsShellAction `json:"action"`
		}
		if err := json.Unmarshal(raw, &item); err != nil {
			return nil, itemDecodeError(i, err)
		}
		asAPI := map[string]any{"type": "shell_call", "call_id": head.SDKCallID}
		if a := item.Action; a != nil {
			asAPI["action"] = map[string]any{"commands": a.Commands, "timeout_ms": a.TimeoutMS, "max_output_length": a.MaxOutputLength}
		}
		translated, _ := json.Marshal(asAPI)
		run, err = shellRun(i, head.SDKCallID, translated)
	} else {
		run, err = applyPatchRun(i, head.SDKCallID, raw)
	}
	if run == nil || err != nil {
		return run, err
	}
	answer := run.answer
	run.answer = func(res []api.ToolResult, calls []api.CallRecord) any {
		return agentsBuiltinAnswer(answer(res, calls))
	}
	return run, nil
}

// agentsBuiltinAnswer words an API output item as the SDK's result item.
func agentsBuiltinAnswer(out any) any {
	switch o := out.(type) {
	case applyPatchCallOutput:
		return agentsApplyPatchResult(o) // the same fields, the SDK's names
	case shellCallOutput:
		r := agentsShellResult{Type: o.Type, CallID: o.CallID, Status: o.Status, MaxOutputLength: o.MaxOutputLength,
			Output: make([]agentsShellContent, len(o.Output))}
		for n, c := range o.Output {
			outcome := map[string]any{"type": c.Outcome.Type}
			if c.Outcome.Type == "exit" {
				var code any // the SDK's exitCode is a number or null
				if c.Outcome.ExitCode != nil {
					code = *c.Outcome.ExitCode
				}
				outcome["exitCode"] = code
			}
			r.Output[n] = agentsShellContent{Stdout: c.Stdout, Stderr: c.Stderr, Outcome: outcome}
		}
		return r
	}
	return out
}
