package handlers

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/mcpcontent"
)

// AccessMCPResourceInput is access_mcp_resource's input.
type AccessMCPResourceInput struct {
	ServerName string `json:"server_name" validate:"required" jsonschema:"name of the MCP server providing the resource"`
	URI        string `json:"uri" validate:"required" jsonschema:"URI of the resource to read"`
}

func newAccessMCPResource(name string, env tool.Env) *tool.Tool {
	hub := env.MCP
	return tool.NewTool(tool.Spec[AccessMCPResourceInput]{
		Name:        name,
		Description: "Read a resource (a file, an API answer, system information) from a connected MCP server.",
		Run: func(ctx context.Context, call *tool.Call, in *AccessMCPResourceInput) (tool.Result, error) {
			if hub == nil {
				return tool.Result{}, tool.Errorf(api.ToolCodeMCPUnavailable, "No MCP servers are configured on this toolgate.")
			}
			res, err := hub.ReadResource(ctx, in.ServerName, in.URI)
			if err != nil {
				return tool.Result{}, tool.Errorf(api.ToolCodeMCPFailed, "%s", err.Error())
			}
			if !call.PlainResults {
				return tool.Result{Content: clineResourceResult(res.Contents)}, nil
			}
			out := tool.Result{Content: make([]api.Content, 0, len(res.Contents))}
			for _, c := range res.Contents {
				out.Content = append(out.Content, mcpcontent.ResourceBlock(c))
			}
			return out, nil
		},
		// Reading a resource changes nothing.
		ConcurrencySafe: func(*AccessMCPResourceInput) bool { return true },
	})
}

// clineResourceResult is a resource as Cline's AccessMcpResourceHandler
// (v4.0.12, execute) gives it to the model: the texts of its contents that
// have one, joined by blank lines, "(Empty response)" when there are none,
// cut at 400 K with Cline's note (clineTruncate). Contents without text
// (images, blobs), which Cline leaves out, follow as blocks of their own.
func clineResourceResult(contents []*mcp.ResourceContents) []api.Content {
	var texts []string
	var rest []api.Content
	for _, c := range contents {
		switch {
		case c == nil:
		case c.Text != "":
			texts = append(texts, c.Text)
		case c.Blob != nil:
			rest = append(rest, mcpcontent.ResourceBlock(c))
		}
	}
	text := strings.Join(texts, "\n\n")
	if text == "" {
		text = "(Empty response)"
	}
	return append([]api.Content{api.TextContent(clineTruncate(text))}, rest...)
}
