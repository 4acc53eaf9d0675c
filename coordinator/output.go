package coordinator

import (
	"io"

	"github.com/toolgate/toolgate/api"
)

// KeptOutput is a call's full output, kept beside its record so that a
// client can fetch more than the tool_result holds. The session removes it
// when the call is evicted or the session ends.
type KeptOutput interface {
	// Open reads the output from its start.
	Open() (io.ReadCloser, error)
	// Size is the output's length in bytes; Open reads at least that many
	// while it still grows.
	Size() int64
	// Remove frees what the output holds (a spill file).
	Remove() error
}

// KeepOutput hands the call's full output to its session.
func (c *Call) KeepOutput(o KeptOutput) {
	if c.keep != nil {
		c.keep(o)
	} else {
		_ = o.Remove()
	}
}

// keepOutput stores a call's output; a session that has ended removes it
// at once, since nobody can fetch it any more.
func (s *Session) keepOutput(e *callEntry, o KeptOutput) {
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
func (s *Session) Output(toolUseID string) (o KeptOutput, state api.CallState, found bool) {
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
