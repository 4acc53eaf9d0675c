package api

// Tool result codes of hooks and interactive tools.
const (
	// ToolCodeHookBlocked: a PreToolUse hook denied the call, or a
	// PostToolUse hook marked its result blocked.
	ToolCodeHookBlocked = "hook_blocked"
	// ToolCodeHookFailed: a hook failed and the config fails closed.
	ToolCodeHookFailed = "hook_failed"
	// ToolCodeNoAnswer: an interactive call got no answer in time.
	ToolCodeNoAnswer = "answer_timeout"
)

// StateAwaitingInput is the state of an interactive call (a question, a
// completion, a plan response) waiting for the user's answer.
const StateAwaitingInput CallState = "awaiting_input"

// EventToolAwaitingInput announces a call in state awaiting_input; its
// Input says what the user is asked.
const EventToolAwaitingInput = "tool.awaiting_input"

// InputRequest is what an interactive call asks the user.
type InputRequest struct {
	// Kind is the tool: ask_followup_question, attempt_completion or
	// plan_mode_respond.
	Kind string `json:"kind"`
	// Text is the question, the completion result or the plan response.
	Text    string   `json:"text"`
	Options []string `json:"options,omitempty"`
	// Command is attempt_completion's command to demonstrate the result.
	Command string `json:"command,omitempty"`
	// Acceptable says the user may accept instead of answering
	// (AnswerRequest.Accept): attempt_completion's "the task is done".
	Acceptable bool `json:"acceptable,omitempty"`
}

// AnswerRequest answers a call in state awaiting_input.
// Text is the answer; Accept, for a request marked acceptable, accepts
// without one (Cline's button that ends the task). Exactly one is given.
type AnswerRequest struct {
	Text   string `json:"text,omitempty"`
	Accept bool   `json:"accept,omitempty"`
}

// AnswerResponse acknowledges an answer.
type AnswerResponse struct {
	ToolUseID string `json:"tool_use_id"`
}
