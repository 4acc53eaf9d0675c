package coordinator

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolgate/toolgate/api"
)

// TaskProgressParam is the parameter Cline's focus chain adds to every
// tool it offers (Cline's core/task/focus-chain/index.ts,
// updateFCListFromToolResponse): the model's markdown checklist of the
// task. It belongs to the conversation, not to the tool, so it is taken
// out of the input before validation and kept on the session.
const TaskProgressParam = "task_progress"

// splitTaskProgress removes task_progress from a JSON object input. ok is
// true when the parameter was there; text is its value when it was a
// string (Cline always sends one).
func splitTaskProgress(raw json.RawMessage) (rest json.RawMessage, text string, ok bool) {
	if !bytes.Contains(raw, []byte(`"`+TaskProgressParam+`"`)) {
		return raw, "", false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return raw, "", false
	}
	v, found := obj[TaskProgressParam]
	if !found {
		return raw, "", false
	}
	delete(obj, TaskProgressParam)
	out, err := json.Marshal(obj)
	if err != nil {
		return raw, "", false
	}
	// Into a variable of its own: decoding into the result itself would
	// move it to the heap on every call, with or without the parameter.
	var checklist string
	_ = json.Unmarshal(v, &checklist)
	return out, checklist, true
}

// TaskProgress is the latest checklist the session's model sent.
func (s *Session) TaskProgress() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taskProgress
}

// noteTaskProgress keeps a call's checklist on the session and, when it
// differs from the one kept, emits task.progress. An empty checklist
// changes nothing and the kept one is trimmed, as in Cline's
// updateFCListFromToolResponse.
func (s *Session) noteTaskProgress(msgID, toolUseID, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	s.mu.Lock()
	changed := text != s.taskProgress
	s.taskProgress = text
	s.mu.Unlock()
	if changed {
		s.Events.Append(api.Event{Type: api.EventTaskProgress, MessageID: msgID, ToolUseID: toolUseID, TaskProgress: text})
	}
}
