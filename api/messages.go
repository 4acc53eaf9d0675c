package api

import (
	"encoding/json"
	"time"
)

// AssistantMessage is the body of POST /v1/sessions/{sid}/messages: the
// model's turn as the Messages API returned it. Content blocks stay raw: only
// tool_use blocks are acted on, every other block type (text, thinking, ...)
// is accepted and ignored, so a client can post the model's message verbatim.
type AssistantMessage struct {
	ID      string            `json:"id,omitempty"`
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

// UserMessage is the reply a client appends to the conversation: one
// tool_result per tool_use, in block order.
type UserMessage struct {
	Role    string       `json:"role"`
	Content []ToolResult `json:"content"`
}

// MessageResponse answers a posted message.
type MessageResponse struct {
	MessageID string       `json:"message_id"`
	Message   UserMessage  `json:"message"`
	Calls     []CallRecord `json:"calls"`
}

// ToolUseResponse answers POST /v1/tool_use.
type ToolUseResponse struct {
	Result ToolResult `json:"result"`
	Call   CallRecord `json:"call"`
}

// CallStatus is how a call ended.
type CallStatus string

// Call statuses. Every tool_use ends in exactly one of them.
const (
	StatusSucceeded   CallStatus = "succeeded"
	StatusFailed      CallStatus = "failed"
	StatusInvalid     CallStatus = "invalid"
	StatusUnknownTool CallStatus = "unknown_tool"
	StatusDenied      CallStatus = "denied"
	StatusSkipped     CallStatus = "skipped"
	StatusCancelled   CallStatus = "cancelled"
)

// AllStatuses lists every CallStatus, for metrics that start at zero.
var AllStatuses = []CallStatus{StatusSucceeded, StatusFailed, StatusInvalid, StatusUnknownTool, StatusDenied, StatusSkipped, StatusCancelled, StatusInterrupted}

// CallState is where a call is in its life.
type CallState string

// Call states.
const (
	StateQueued           CallState = "queued"
	StateRunning          CallState = "running"
	StateAwaitingApproval CallState = "awaiting_approval"
	StateDone             CallState = "done"
)

// CallRecord describes one call: what ran, how it ended and how long it took.
type CallRecord struct {
	ToolUseID  string       `json:"tool_use_id"`
	Name       string       `json:"name"`
	MessageID  string       `json:"message_id,omitempty"`
	State      CallState    `json:"state"`
	Status     CallStatus   `json:"status,omitempty"`
	StartedAt  *time.Time   `json:"started_at,omitempty"`
	DurationMS float64      `json:"duration_ms"`
	Error      *ErrorDetail `json:"error,omitempty"`
}

// ErrorDetail is the code and message of why a call did not succeed.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// CallsResponse answers GET /v1/sessions/{sid}/calls.
type CallsResponse struct {
	Calls []CallRecord `json:"calls"`
}

// ToolInfo describes one tool as a model needs it.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// APIType is the Messages API type of a built-in client tool
	// ("text_editor_20250728"), which the Anthropic format declares by
	// type and name alone; toolgate's own format leaves it out.
	APIType string `json:"-"`
	// Grammar is the grammar of a freeform tool (Codex's apply_patch),
	// whose call is text rather than JSON arguments; the OpenAI formats
	// list such a tool as a custom tool with it, toolgate's own and the
	// Anthropic format by its input schema.
	Grammar *ToolGrammar `json:"-"`
}

// ToolGrammar is the grammar a freeform tool's text follows, as the
// OpenAI custom tools' format declares it.
type ToolGrammar struct {
	// Syntax is "lark" or "regex".
	Syntax string
	// Definition is the grammar itself.
	Definition string
}

// ToolsResponse answers GET /v1/tools.
type ToolsResponse struct {
	Tools []ToolInfo `json:"tools"`
	// ClientSide names the tools the client runs itself; a call to one
	// is answered with error code not_owned.
	ClientSide []string `json:"client_side"`
	// Errors names the tool sources (agent files) that give no tool, and why.
	Errors []ToolLoadError `json:"errors"`
}

// ToolLoadError is a tool source that could not be used.
type ToolLoadError struct {
	// Source is the file, relative to its directory (an agent file).
	Source string `json:"source"`
	// Tool is the tool it would have given, when known.
	Tool  string `json:"tool,omitempty"`
	Error string `json:"error"`
}

// CallResponse answers GET /v1/sessions/{sid}/calls/{tool_use_id}. Result
// is absent while the call has not finished.
type CallResponse struct {
	Call   CallRecord  `json:"call"`
	Result *ToolResult `json:"result,omitempty"`
}

// InterruptResponse answers POST /v1/sessions/{sid}/interrupt: how many
// calls were cancelled (running cancel-kind calls and calls not yet
// started) and how many block-kind calls are left to finish.
type InterruptResponse struct {
	Cancelled int `json:"cancelled"`
	Finishing int `json:"finishing"`
}

// StatusInterrupted is the status of a call that was running when
// toolgate stopped (a crash, a kill): it is never run again, since it may
// have done part or all of its work.
const StatusInterrupted CallStatus = "interrupted"

// PendingResponse answers a call route with 202 Accepted when the client
// asked not to be kept waiting (Prefer: respond-async, or wait=N) and a
// call waits for a person: the calls go on in the session, and the client
// learns at once which call waits and how to decide it.
type PendingResponse struct {
	// MessageID is the message the calls belong to.
	MessageID string `json:"message_id"`
	// Waiting is the call that waits for a decision or an answer.
	Waiting PendingCall `json:"waiting"`
	// Calls are the message's calls as they stand.
	Calls []CallRecord `json:"calls"`
}

// PendingCall is a call waiting for a person, with where to act on it.
type PendingCall struct {
	ToolUseID string    `json:"tool_use_id"`
	Name      string    `json:"name"`
	State     CallState `json:"state"`
	// CallURL answers GET with the call and, once it is done, its result.
	CallURL string `json:"call_url"`
	// DecisionURL takes POST {"decision":"approve"|"reject"} for a call
	// awaiting approval; AnswerURL takes the answer to a question.
	DecisionURL string `json:"decision_url,omitempty"`
	AnswerURL   string `json:"answer_url,omitempty"`
	// Approval says why the call asks, what it would do, and when an
	// unanswered approval ends the call as denied.
	Approval *Approval `json:"approval,omitempty"`
}
