package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/api"
)

// Responses API items (openai-node src/resources/responses/responses.ts,
// ResponseOutputItem and ResponseInputItem). The call items toolgate runs
// are function_call and custom_tool_call, and the built-in tools' calls
// apply_patch_call, shell_call and local_shell_call (openai_builtin.go).
// Items that are history (message, reasoning, outputs) or that the API ran
// itself (web_search_call, file_search_call, code_interpreter_call,
// image_generation_call, mcp_call, a server-side tool_search_call, a
// shell_call in a hosted container) are
// passed over. A client-side call toolgate cannot run (computer_call, an
// MCP approval request, a client-side tool search, a call type it does not
// know) is refused with a 400 naming it: passing it over would leave the
// model waiting for an answer nobody gives.

// responsesItemHead is what every item is told by.
type responsesItemHead struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	SDKCallID string `json:"callId"`
	Execution string `json:"execution"`
}

// responsesFunctionCall is a function_call or custom_tool_call item.
type responsesFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Input     string `json:"input"` // a custom_tool_call's text
}

// passedOver are the item types that are not calls for the client to run.
var passedOver = map[string]bool{
	"message": true, "reasoning": true, "compaction": true, "program": true, "program_output": true,
	"additional_tools": true, "configuration_update": true, "item_reference": true,
	"function_call_output": true, "function_call_result": true, "custom_tool_call_output": true,
	"computer_call_output": true, "local_shell_call_output": true, "shell_call_output": true,
	"apply_patch_call_output": true, "tool_search_output": true, "mcp_approval_response": true,
	"mcp_list_tools": true, "mcp_call": true, "web_search_call": true, "file_search_call": true,
	"code_interpreter_call": true, "image_generation_call": true,
}

// responsesRuns reads a list of Responses items into the calls that run.
func responsesRuns(body []byte) ([]openAIRun, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return nil, decodeError(err)
	}
	var runs []openAIRun
	for i, raw := range items {
		var head responsesItemHead
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, itemError(i, "type", "must be an item object with a string type")
		}
		run, err := responsesRun(i, head, raw)
		if err != nil {
			return nil, err
		}
		if run != nil {
			runs = append(runs, *run)
		}
	}
	return runs, nil
}

// responsesRun reads one item: the call it runs, nil when it is passed
// over, or why it is refused.
func responsesRun(i int, head responsesItemHead, raw json.RawMessage) (*openAIRun, error) {
	switch head.Type {
	case "function_call", "custom_tool_call":
		var call responsesFunctionCall
		if err := json.Unmarshal(raw, &call); err != nil {
			return nil, itemDecodeError(i, err)
		}
		if head.CallID == "" && head.SDKCallID != "" {
			return agentsFunctionRun(head, call), nil
		}
		return functionRun(head, call), nil
	case "apply_patch_call", "shell_call":
		if head.CallID == "" && head.SDKCallID != "" {
			return agentsBuiltinRun(i, head, raw)
		}
		if head.Type == "shell_call" {
			return shellRun(i, head.CallID, raw)
		}
		return applyPatchRun(i, head.CallID, raw)
	case "local_shell_call":
		return localShellRun(i, head.CallID, raw)
	case "tool_search_call":
		if head.Execution != "client" {
			return nil, nil
		}
	}
	if passedOver[head.Type] {
		return nil, nil
	}
	if head.Type == "" {
		return nil, itemError(i, "type", "is required")
	}
	if strings.HasSuffix(head.Type, "_call") || strings.HasSuffix(head.Type, "_request") {
		return nil, &api.Error{Code: api.CodeValidation,
			Message: fmt.Sprintf("toolgate cannot run %s items: the client must answer them itself", head.Type),
			Fields:  map[string]string{fmt.Sprintf("items[%d].type", i): head.Type + " is not a call toolgate runs"}}
	}
	return nil, nil
}

// functionRun runs a function_call or custom_tool_call item, answered by a
// function_call_output or custom_tool_call_output item.
func functionRun(head responsesItemHead, call responsesFunctionCall) *openAIRun {
	use := api.ToolUse{Type: api.TypeToolUse, ID: head.CallID, Name: call.Name, Input: openAIArguments(call.Arguments)}
	outType := "function_call_output"
	if head.Type == "custom_tool_call" {
		use.Input, outType = customToolInput(call.Input), "custom_tool_call_output"
	}
	return &openAIRun{uses: []api.ToolUse{use}, answer: func(res []api.ToolResult, _ []api.CallRecord) any {
		return openAIFunctionOutput{Type: outType, CallID: head.CallID, Output: responsesOutput(res[0])}
	}}
}

// agentsFunctionResult answers a function call item of the Agents SDK's
// own shape (@openai/agents-core dist/types/protocol: FunctionCallItem,
// callId in camel case) with the SDK's FunctionCallResultItem, which the
// client appends to its run's history as it is. A result with an image
// gives its parts as the SDK's input_text and input_image items, so the
// image reaches the model as an image.
type agentsFunctionResult struct {
	Type   string `json:"type"`
	Name   string `json:"name"`
	CallID string `json:"callId"`
	Status string `json:"status"`
	Output any    `json:"output"`
}

// agentsOutputItem is one input_text or input_image item of the SDK's
// structured output.
type agentsOutputItem struct {
	Type  string `json:"type"`
	Text  string `json:"text,omitempty"`
	Image string `json:"image,omitempty"`
}

func agentsFunctionRun(head responsesItemHead, call responsesFunctionCall) *openAIRun {
	use := api.ToolUse{Type: api.TypeToolUse, ID: head.SDKCallID, Name: call.Name, Input: openAIArguments(call.Arguments)}
	return &openAIRun{uses: []api.ToolUse{use}, answer: func(res []api.ToolResult, _ []api.CallRecord) any {
		out := agentsFunctionResult{Type: "function_call_result", Name: call.Name, CallID: head.SDKCallID, Status: "completed"}
		switch parts := responsesOutput(res[0]).(type) {
		case []openAIOutputItem:
			items := make([]agentsOutputItem, 0, len(parts))
			for _, p := range parts {
				items = append(items, agentsOutputItem{Type: p.Type, Text: p.Text, Image: p.ImageURL})
			}
			out.Output = items
		default:
			out.Output = parts
		}
		return out
	}}
}

// itemError is a 400 about one field of item i.
func itemError(i int, field, msg string) error {
	return &api.Error{Code: api.CodeValidation, Message: "invalid Responses item",
		Fields: map[string]string{fmt.Sprintf("items[%d].%s", i, field): msg}}
}

// itemDecodeError is a 400 for item i whose fields have the wrong types.
func itemDecodeError(i int, err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return itemError(i, typ.Field, "must be "+typ.Type.String())
	}
	return itemError(i, "type", err.Error())
}
