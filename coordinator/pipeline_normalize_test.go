package coordinator

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
)

func TestNormalizeName(t *testing.T) {
	tests := []struct {
		name, tool, input string
		wantTool, want    string
	}{
		{name: "plain tool", tool: "read_file", input: `{"path":"a"}`, wantTool: "read_file", want: `{"path":"a"}`},
		{name: "mcp name", tool: "mcp__github__list_issues", input: `{"repo": "x/y"}`, wantTool: tool.UseMCPTool,
			want: `{"arguments":{"repo":"x/y"},"server_name":"github","tool_name":"list_issues"}`},
		{name: "mcp name without input", tool: "mcp__s__t", wantTool: tool.UseMCPTool,
			want: `{"arguments":{},"server_name":"s","tool_name":"t"}`},
		{name: "html in arguments", tool: "mcp__s__t", input: `{"q":"<a>&"}`, wantTool: tool.UseMCPTool,
			want: `{"arguments":{"q":"\u003ca\u003e\u0026"},"server_name":"s","tool_name":"t"}`},
		{name: "invalid arguments", tool: "mcp__s__t", input: `{"q":`, wantTool: tool.UseMCPTool, want: `{"q":`},
		// Cline's names (shared/mcp.ts CLINE_MCP_TOOL_IDENTIFIER); with no hub
		// the key stays the server name.
		{name: "cline mcp name", tool: "github0mcp0list_issues", input: `{"repo":"x/y"}`, wantTool: tool.UseMCPTool,
			want: `{"arguments":{"repo":"x/y"},"server_name":"github","tool_name":"list_issues"}`},
		{name: "cline mark twice keeps the tool whole", tool: "s0mcp0a0mcp0b", input: `{}`, wantTool: tool.UseMCPTool,
			want: `{"arguments":{},"server_name":"s","tool_name":"a0mcp0b"}`},
		{name: "cline mark without a key", tool: "0mcp0t", input: `{}`, wantTool: "0mcp0t", want: `{}`},
		{name: "cline mark without a tool", tool: "s0mcp0", input: `{}`, wantTool: "s0mcp0", want: `{}`},
	}
	c := &Coordinator{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotTool, got := c.normalizeName(tt.tool, json.RawMessage(tt.input), "0mcp0")
			if gotTool != tt.wantTool || string(got) != tt.want {
				t.Errorf("normalizeName(%q, %s) = %q, %s; want %q, %s", tt.tool, tt.input, gotTool, got, tt.wantTool, tt.want)
			}
		})
	}
}
