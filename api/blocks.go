package api

import "encoding/json"

// Block types as the Anthropic Messages API names them.
const (
	TypeToolUse    = "tool_use"
	TypeToolResult = "tool_result"
	TypeText       = "text"
	TypeImage      = "image"
	// TypeDocument is a PDF in a tool_result (Source's media type
	// application/pdf), as Claude Code's Read of a PDF gives it.
	TypeDocument = "document"
)

// ToolUse is a tool_use block emitted by the model: which tool to call and
// with what input. Input stays raw so each tool decodes it into its own type.
type ToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// Partial marks a streaming preview of a block that is not complete yet.
	Partial bool `json:"partial,omitempty"`
}

// ToolResult is the tool_result block answering one ToolUse. Clients append
// it to the conversation unchanged, so IsError is always present on the wire.
type ToolResult struct {
	Type      string    `json:"type"`
	ToolUseID string    `json:"tool_use_id"`
	Content   []Content `json:"content"`
	IsError   bool      `json:"is_error"`
}

// Content is one piece of a tool_result: text or an image.
type Content struct {
	Type   string       `json:"type"`
	Text   string       `json:"text,omitempty"`
	Source *ImageSource `json:"source,omitempty"`
}

// ImageSource carries an image (or a document's PDF) inline, base64-encoded.
type ImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// TextContent is a text Content.
func TextContent(text string) Content { return Content{Type: TypeText, Text: text} }

// NewToolResult builds a tool_result with a single text content.
func NewToolResult(toolUseID, text string, isError bool) ToolResult {
	return ToolResult{Type: TypeToolResult, ToolUseID: toolUseID, Content: []Content{TextContent(text)}, IsError: isError}
}
