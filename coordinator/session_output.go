package coordinator

import (
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// keepOutput stores a call's output; a session that has ended removes it
// at once, since nobody can fetch it any more.
func (s *Session) keepOutput(e *callEntry, o tool.KeptOutput) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil || s.calls[e.record.ToolUseID] != e {
		_ = o.Remove()
		return
	}
	if e.output != nil {
		_ = e.output.Remove()
	}
	e.output = o
}

// Output returns a call's kept output, which grows while the call runs.
// found is false for an unknown id; o is nil when the call kept none (yet).
func (s *Session) Output(toolUseID string) (o tool.KeptOutput, state api.CallState, found bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.calls[toolUseID]
	if !ok {
		return nil, "", false
	}
	return e.output, e.record.State, true
}

// dropOutputLocked removes a call's kept output.
func (e *callEntry) dropOutputLocked() {
	if e.output != nil {
		_ = e.output.Remove()
		e.output = nil
	}
}
