package cline

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// mcpResult is an MCP tool's result as Cline's UseMcpToolHandler
// (v4.0.12, execute) gives it to the model: one text, "Error:\n" first when
// the server flagged an error, then the texts joined by blank lines;
// "(No response)" when that is empty; then the images as image blocks
// (formatResponse.toolResult). Where Cline would answer "(No response)" to
// a result that has only structured content, the structured content's
// JSON is the text. A text over 400 K is cut with Cline's note
// (truncate).
func mcpResult(a tool.MCPAnswer) []api.Content {
	texts := slices.DeleteFunc(slices.Clone(a.Texts), func(s string) bool { return s == "" })
	text := strings.Join(texts, "\n\n")
	if a.IsError {
		text = "Error:\n" + text
	}
	if text == "" {
		text = a.Structured
	}
	if text == "" {
		text = "(No response)"
	}
	return append([]api.Content{api.TextContent(truncate(text))}, a.Media...)
}

// mcpResource is a resource as Cline's AccessMcpResourceHandler (v4.0.12,
// execute) gives it to the model: the texts of its contents joined by
// blank lines, "(Empty response)" when there are none, cut at 400 K with
// Cline's note (truncate). Contents without text (images, blobs), which
// Cline leaves out, follow as blocks of their own.
func mcpResource(a tool.MCPAnswer) []api.Content {
	text := strings.Join(a.Texts, "\n\n")
	if text == "" {
		text = "(Empty response)"
	}
	return append([]api.Content{api.TextContent(truncate(text))}, a.Media...)
}

// invalidMCPArguments is formatResponse.invalidMcpToolArgumentError
// (core/prompts/responses.ts, v4.0.12).
func invalidMCPArguments(server, toolName string) string {
	return fmt.Sprintf("Invalid JSON argument used with %s for %s. Please retry with a properly formatted JSON argument.", server, toolName)
}

// maxContent is Cline's MAX_CONTENT_SIZE_BYTES (shared/content-limits.ts).
const maxContent = 400 * 1024

// truncate is Cline's truncateContent (shared/content-limits.ts,
// v4.0.12): a text longer than 400 K (JavaScript string length, in UTF-16
// code units) keeps its first 400 K and ends with Cline's note.
func truncate(s string) string {
	if len(s) <= maxContent { // UTF-16 units never outnumber bytes
		return s
	}
	units := utf16.Encode([]rune(s))
	if len(units) <= maxContent {
		return s
	}
	kept := string(utf16.Decode(units[:maxContent]))
	return kept + fmt.Sprintf("\n\n---\n\n[FILE TRUNCATED: This content is %s but only the first %s is shown (%s truncated). "+
		"Use search_files to find specific patterns, or execute_command with grep/head/tail for targeted reading.]",
		formatBytes(len(units)), formatBytes(maxContent), formatBytes(len(units)-maxContent))
}

// formatBytes is Cline's formatBytes: "N B", "N.N KB" or "N.N MB",
// rounded as JavaScript's toFixed(1) rounds these values (half up).
func formatBytes(n int) string {
	oneDecimal := func(v float64) string { return strconv.FormatFloat(math.Floor(v*10+0.5)/10, 'f', 1, 64) }
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return oneDecimal(float64(n)/1024) + " KB"
	}
	return oneDecimal(float64(n)/(1024*1024)) + " MB"
}
