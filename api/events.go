package api

import "time"

// Event types on a session's stream, in the order a call emits them.
const (
	EventToolQueued           = "tool.queued"
	EventToolPartial          = "tool.partial"
	EventToolAwaitingApproval = "tool.awaiting_approval"
	EventToolStarted          = "tool.started"
	EventToolOutput           = "tool.output"
	EventToolFinished         = "tool.finished"
	EventMessageFinished      = "message.finished"
	// EventTodosUpdated carries the session's todo list after TodoWrite.
	EventTodosUpdated = "todos.updated"
	// EventTaskProgress carries the model's new task checklist when a
	// call's task_progress parameter changes it.
	EventTaskProgress = "task.progress"
)

// Event is one server-sent event. ID increases monotonically per session and
// is also the SSE id, so Last-Event-ID resumes after it.
type Event struct {
	ID        int64     `json:"id"`
	Type      string    `json:"type"`
	SessionID string    `json:"session_id"`
	MessageID string    `json:"message_id,omitempty"`
	ToolUseID string    `json:"tool_use_id,omitempty"`
	Time      time.Time `json:"time"`
	// Call is set on tool.* events: the call's record at that moment.
	Call *CallRecord `json:"call,omitempty"`
	// Result is set on tool.finished.
	Result *ToolResult `json:"result,omitempty"`
	// Stream and Chunk are set on tool.output: partial output of a call.
	Stream string `json:"stream,omitempty"`
	Chunk  string `json:"chunk,omitempty"`
	// Preview is set on tool.partial: the effect of the block so far.
	Preview *Preview `json:"preview,omitempty"`
	// Block is set on tool.partial: the streaming block as far as it has
	// arrived, its input possibly incomplete.
	Block *ToolUse `json:"block,omitempty"`
	// Approval is set on tool.awaiting_approval.
	Approval *Approval `json:"approval,omitempty"`
	// Input is set on tool.awaiting_input: what the user is asked.
	Input *InputRequest `json:"input,omitempty"`
	// TaskProgress is set on task.progress: the whole new checklist.
	TaskProgress string `json:"task_progress,omitempty"`
	// Response is set on message.finished: the whole answer to the message.
	Response *MessageResponse `json:"response,omitempty"`
	// Todos is set on todos.updated: the whole list as it is now.
	Todos []Todo `json:"todos,omitempty"`
	// Port is set on port.listening and port.closed.
	Port *Port `json:"port,omitempty"`
}
