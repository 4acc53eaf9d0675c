package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

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
	cline := !call.PlainResults
	args, err := mcpArguments(in.Arguments)
	if err != nil && cline {
		// UseMcpToolHandler.execute (Cline v4.0.12): arguments that do not
		// parse get formatResponse.invalidMcpToolArgumentError; toolgate's
		// reason follows in a block of its own.
		return tool.Result{Content: []api.Content{
			api.TextContent(tool.ClineToolError(clineInvalidMCPArguments(in.ServerName, in.ToolName))),
			api.TextContent(err.Error()),
		}}, &tool.ToolError{Code: api.ToolCodeInvalid}
	}
	if err != nil {
		return tool.Result{}, err
	}
	res, err := hub.CallTool(ctx, in.ServerName, in.ToolName, args, func(msg string) { call.Output("progress", msg+"\n") })
	if err != nil && cline {
		// UseMcpToolHandler.execute (Cline v4.0.12) answers a call that
		// threw with "Error executing MCP tool: ", not as a tool error.
		return tool.Result{Content: []api.Content{api.TextContent("Error executing MCP tool: " + err.Error())}},
			&tool.ToolError{Code: api.ToolCodeMCPFailed}
	}
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeMCPFailed, "%s", err.Error())
	}
	if cline {
		return tool.Result{Content: clineMCPResult(res), IsError: res.IsError}, nil
	}
	return tool.Result{Content: mcpcontent.Blocks(res), IsError: res.IsError}, nil
}

// clineMCPResult is an MCP tool's result as Cline's UseMcpToolHandler
// (v4.0.12, execute) gives it to the model: one text, "Error:\n" first when
// the server flagged an error, then the texts of the text blocks and of
// embedded resources (their JSON, indented by two, without any blob),
// joined by blank lines; "(No response)" when that is empty; then the
// images as image blocks (formatResponse.toolResult). Other blocks (audio,
// resource links) give no text, as in Cline. Where Cline would answer
// "(No response)" to a result that has only structured content, the
// structured content's JSON is the text. A text over 400 K is cut with
// Cline's note (clineTruncate).
func clineMCPResult(res *mcp.CallToolResult) []api.Content {
	var texts []string
	var images []api.Content
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			texts = append(texts, c.Text)
		case *mcp.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			r := *c.Resource
			r.Blob = nil
			texts = append(texts, jsonIndented(&r))
		case *mcp.ImageContent:
			images = append(images, mcpcontent.Blocks(&mcp.CallToolResult{Content: []mcp.Content{c}})...)
		}
	}
	texts = slices.DeleteFunc(texts, func(s string) bool { return s == "" })
	text := strings.Join(texts, "\n\n")
	if res.IsError {
		text = "Error:\n" + text
	}
	if text == "" && len(res.Content) == 0 && res.StructuredContent != nil {
		text = jsonIndented(res.StructuredContent)
	}
	if text == "" {
		text = "(No response)"
	}
	return append([]api.Content{api.TextContent(clineTruncate(text))}, images...)
}

// clineInvalidMCPArguments is formatResponse.invalidMcpToolArgumentError
// (core/prompts/responses.ts, v4.0.12).
func clineInvalidMCPArguments(server, toolName string) string {
	return fmt.Sprintf("Invalid JSON argument used with %s for %s. Please retry with a properly formatted JSON argument.", server, toolName)
}

// clineMaxContent is Cline's MAX_CONTENT_SIZE_BYTES (shared/content-limits.ts).
const clineMaxContent = 400 * 1024

// clineTruncate is Cline's truncateContent (shared/content-limits.ts,
// v4.0.12): a text longer than 400 K (JavaScript string length, in UTF-16
// code units) keeps its first 400 K and ends with Cline's note.
func clineTruncate(s string) string {
	if len(s) <= clineMaxContent { // UTF-16 units never outnumber bytes
		return s
	}
	units := utf16.Encode([]rune(s))
	if len(units) <= clineMaxContent {
		return s
	}
	kept := string(utf16.Decode(units[:clineMaxContent]))
	return kept + fmt.Sprintf("\n\n---\n\n[FILE TRUNCATED: This content is %s but only the first %s is shown (%s truncated). "+
		"Use search_files to find specific patterns, or execute_command with grep/head/tail for targeted reading.]",
		clineFormatBytes(len(units)), clineFormatBytes(clineMaxContent), clineFormatBytes(len(units)-clineMaxContent))
}

// clineFormatBytes is Cline's formatBytes: "N B", "N.N KB" or "N.N MB",
// rounded as JavaScript's toFixed(1) rounds these values (half up).
func clineFormatBytes(n int) string {
	oneDecimal := func(v float64) string { return strconv.FormatFloat(math.Floor(v*10+0.5)/10, 'f', 1, 64) }
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return oneDecimal(float64(n)/1024) + " KB"
	}
	return oneDecimal(float64(n)/(1024*1024)) + " MB"
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
