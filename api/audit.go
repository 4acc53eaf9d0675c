package api

import (
	"encoding/json"
	"time"
)

// AuditRecord is one call as the audit log keeps it.
type AuditRecord struct {
	SessionID string `json:"session_id"`
	ToolUseID string `json:"tool_use_id"`
	MessageID string `json:"message_id,omitempty"`
	Tool      string `json:"tool"`
	// Input is the call's input; above the store's size cap only its
	// SHA-256 and size are kept.
	Input       json.RawMessage `json:"input,omitempty"`
	InputSHA256 string          `json:"input_sha256"`
	InputBytes  int             `json:"input_bytes"`
	State       CallState       `json:"state"`
	Status      CallStatus      `json:"status,omitempty"`
	ErrorCode   string          `json:"error_code,omitempty"`
	// Decision is what the permission stage decided: allow, deny, approved,
	// rejected or approval_timeout; DecidedBy says who: "rule: …",
	// "default: …", or the label of the token that answered ("token").
	Decision   string    `json:"decision,omitempty"`
	DecidedBy  string    `json:"decided_by,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS float64   `json:"duration_ms"`
	// Result is the tool_result, long texts cut to their head and tail;
	// ResultBytes is its size before cutting.
	Result      *ToolResult `json:"result,omitempty"`
	ResultBytes int         `json:"result_bytes"`
	// Discarded calls belonged to a discarded message.
	Discarded bool `json:"discarded,omitempty"`
}

// AuditResponse answers GET /v1/audit: a page of calls, newest first.
// NextCursor, when present, is the cursor of the next page.
type AuditResponse struct {
	Calls      []AuditRecord `json:"calls"`
	NextCursor string        `json:"next_cursor,omitempty"`
}
