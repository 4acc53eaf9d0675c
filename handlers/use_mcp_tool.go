package handlers

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/mcphub"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// UseMCPToolInput is use_mcp_tool's input, as Cline sends it. Calls to
// mcp__<server>__<tool> names arrive here too, normalized by the
// coordinator.
type UseMCPToolInput struct {
	ServerName string `json:"server_name" validate:"required" jsonschema:"name of the MCP server providing the tool"`
	ToolName   string `json:"tool_name" validate:"required" jsonschema:"name of the tool to call"`
	Arguments  any    `json:"arguments,omitempty" jsonschema:"the tool's arguments: a JSON object, or a string holding one"`
}

func newUseMCPTool(name string, env tool.Env) *tool.Tool {
	hub := env.MCP
	return tool.NewTool(tool.Spec[UseMCPToolInput]{
		Name: name,
		Description: "Call a tool of a connected MCP server. Each server's tools are also listed on their own as " +
			"mcp__<server>__<tool> with their input schemas.",
		Run: func(ctx context.Context, call *tool.Call, in *UseMCPToolInput) (tool.Result, error) {
			return useMCPTool(ctx, hub, call, in)
		},
		// A tool that declares readOnlyHint changes nothing, so its calls
		// may run beside others.
		ConcurrencySafe: func(in *UseMCPToolInput) bool { return hub.ReadOnly(in.ServerName, in.ToolName) },
	})
}

func useMCPTool(ctx context.Context, hub *mcphub.Hub, call *tool.Call, in *UseMCPToolInput) (tool.Result, error) {
	if hub == nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeMCPUnavailable, "No MCP servers are configured on this toolgate.")
	}
	args, err := mcpArguments(in.Arguments)
	if err != nil {
		return tool.Result{}, err
	}
	res, err := hub.CallTool(ctx, in.ServerName, in.ToolName, args, func(msg string) { call.Output("progress", msg+"\n") })
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeMCPFailed, "%s", err.Error())
	}
	return tool.Result{Content: mcphub.Blocks(res), IsError: res.IsError}, nil
}

// mcpArguments accepts the arguments as an object or, as Cline sends
// them, as a string holding a JSON object.
func mcpArguments(v any) (map[string]any, error) {
	switch a := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return a, nil
	case string:
		if a == "" {
			return map[string]any{}, nil
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(a), &m); err != nil {
			return nil, tool.Errorf(api.ToolCodeInvalid, "arguments is a string but not a JSON object: %v", err)
		}
		if m == nil {
			m = map[string]any{}
		}
		return m, nil
	}
	return nil, tool.Errorf(api.ToolCodeInvalid, "arguments must be a JSON object, or a string holding one, not %s", jsonKind(v))
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}
