package mcpcontent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
)

// Blocks maps a tool result's content to tool_result blocks: text stays
// text, images stay images (as PNG, JPEG, GIF or WebP; see imageBlock), and what the Messages API cannot carry in a
// tool_result (audio, binary resources, links) becomes a text note. When
// the result has only structured content, that is given as JSON text.
func Blocks(res *mcp.CallToolResult) []api.Content {
	out := make([]api.Content, 0, len(res.Content))
	for _, c := range res.Content {
		out = append(out, block(c))
	}
	if len(out) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out = append(out, api.TextContent(string(b)))
		}
	}
	return out
}

func block(c mcp.Content) api.Content {
	switch c := c.(type) {
	case *mcp.TextContent:
		return api.TextContent(c.Text)
	case *mcp.ImageContent:
		return imageBlock(c.MIMEType, c.Data)
	case *mcp.AudioContent:
		return api.TextContent(fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data)))
	case *mcp.EmbeddedResource:
		return ResourceBlock(c.Resource)
	case *mcp.ResourceLink:
		return api.TextContent(fmt.Sprintf("[resource link: %s %s]", c.Name, c.URI))
	}
	return api.TextContent(fmt.Sprintf("[unsupported content %T]", c))
}

// ResourceBlock maps one resource's contents to a block.
func ResourceBlock(r *mcp.ResourceContents) api.Content {
	if r == nil {
		return api.TextContent("[empty resource]")
	}
	switch {
	case r.Blob == nil:
		return api.TextContent(r.Text)
	case strings.HasPrefix(r.MIMEType, "image/"):
		return imageBlock(r.MIMEType, r.Blob)
	}
	return api.TextContent(fmt.Sprintf("[resource %s: %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
}
