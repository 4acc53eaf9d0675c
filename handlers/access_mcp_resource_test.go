package handlers

import (
	"testing"

	"github.com/toolgate/toolgate/dialect/cline"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/api"
)

// TestClineResourceResult follows Cline's AccessMcpResourceHandler.execute
// (apps/vscode/src/core/task/tools/handlers/AccessMcpResourceHandler.ts,
// v4.0.12): the contents' texts joined by "\n\n", contents without text
// left out of it, "(Empty response)" when no text remains. toolgate keeps
// a blob, which Cline drops, as a block after Cline's text.
func TestClineResourceResult(t *testing.T) {
	cases := []struct {
		name     string
		contents []*mcp.ResourceContents
		want     []string
	}{
		{"texts joined by blank lines", []*mcp.ResourceContents{{URI: "a", Text: "one"}, {URI: "b", Text: ""}, {URI: "c", Text: "two"}},
			[]string{"one\n\ntwo"}},
		{"nothing to read", []*mcp.ResourceContents{{URI: "a"}}, []string{"(Empty response)"}},
		{"no contents", nil, []string{"(Empty response)"}},
		{"a blob follows Cline's text", []*mcp.ResourceContents{{URI: "mem://b", MIMEType: "application/octet-stream", Blob: []byte{1, 2}}, {URI: "t", Text: "text"}},
			[]string{"text", "[resource mem://b: application/octet-stream, 2 bytes]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := cline.Texts{}.MCPResource(resourceAnswer(tc.contents))
			if len(got) != len(tc.want) {
				t.Fatalf("blocks = %+v, want %q", got, tc.want)
			}
			for i, c := range got {
				if c.Type != api.TypeText || c.Text != tc.want[i] {
					t.Errorf("block %d = %+v, want text %q", i, c, tc.want[i])
				}
			}
		})
	}
}
