package api

// BlockAccepted answers POST /v1/sessions/{sid}/messages/{mid}/blocks:
// the block was taken. A complete block's call is queued or already
// running; follow it on the event stream or through the calls routes.
type BlockAccepted struct {
	MessageID string `json:"message_id"`
	ToolUseID string `json:"tool_use_id"`
	Partial   bool   `json:"partial,omitempty"`
}
