package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/mcpcontent"
)

// UseMCPToolInput is use_mcp_tool's input, as Cline sends it. Calls to
// mcp__<server>__<tool> names arrive here too, normalized by the
// coordinator.
type UseMCPToolInput struct {
	ServerName string `json:"server_name" validate:"required" jsonschema:"name of the MCP server providing the tool"`
	ToolName   string `json:"tool_name" validate:"required" jsonschema:"name of the tool to call"`
	Arguments  any    `json:"arguments,omitempty" jsonschema:"the tool's arguments: a JSON object, or a string holding one"`
}

// MCPNames gives the server and tool the input names, so that the
// coordinator need not read them from the JSON again.
func (in *UseMCPToolInput) MCPNames() (server, tool string) { return in.ServerName, in.ToolName }

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

func useMCPTool(ctx context.Context, hub tool.MCP, call *tool.Call, in *UseMCPToolInput) (tool.Result, error) {
	if hub == nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeMCPUnavailable, "No MCP servers are configured on this toolgate.")
	}
	worded := !call.PlainResults
	args, err := mcpArguments(in.Arguments)
	if err != nil && worded {
		// The dialect's words; toolgate's reason follows in a block of
		// its own.
		return tool.Result{Content: []api.Content{
			api.TextContent(call.Texts.ToolError(call.Texts.MCPBadArguments(in.ServerName, in.ToolName))),
			api.TextContent(err.Error()),
		}}, &tool.ToolError{Code: api.ToolCodeInvalid}
	}
	if err != nil {
		return tool.Result{}, err
	}
	res, err := hub.CallTool(ctx, in.ServerName, in.ToolName, args, func(msg string) { call.Output("progress", msg+"\n") })
	if err != nil && worded {
		// Not wrapped as a tool error: the dialect words a call that
		// failed at the protocol level itself.
		return tool.Result{Content: []api.Content{api.TextContent(call.Texts.MCPFailed(err.Error()))}},
			&tool.ToolError{Code: api.ToolCodeMCPFailed}
	}
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeMCPFailed, "%s", err.Error())
	}
	if worded {
		return tool.Result{Content: call.Texts.MCPResult(mcpAnswer(res)), IsError: res.IsError}, nil
	}
	return tool.Result{Content: mcpcontent.Blocks(res), IsError: res.IsError}, nil
}

// mcpAnswer is an MCP tool's result for the dialect's texts: the texts
// of the text blocks and of embedded resources (their JSON, indented by
// two, without any blob), the images as image blocks, and the structured
// content's JSON when the result has no content blocks. Other blocks
// (audio, resource links) give nothing.
func mcpAnswer(res *mcp.CallToolResult) tool.MCPAnswer {
	a := tool.MCPAnswer{IsError: res.IsError}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			a.Texts = append(a.Texts, c.Text)
		case *mcp.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			r := *c.Resource
			r.Blob = nil
			a.Texts = append(a.Texts, jsonIndented(&r))
		case *mcp.ImageContent:
			a.Media = append(a.Media, mcpcontent.Blocks(&mcp.CallToolResult{Content: []mcp.Content{c}})...)
		}
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		a.Structured = jsonIndented(res.StructuredContent)
	}
	return a
}

// jsonIndented is v as JSON.stringify(v, null, 2) prints it: indented by
// two, "<", ">" and "&" left as they are.
func jsonIndented(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
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
