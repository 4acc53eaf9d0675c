package coordinator

import (
	"sync"

	"github.com/toolgate/toolgate/api"
)

// mistakeCounter is a session's count of consecutive mistakes, as Cline's
// taskState.consecutiveMistakeCount (core/task/TaskState.ts, v4.0.12):
// Cline's handlers add one for a call with a missing or malformed
// parameter and set it back to zero once a call's parameters check out.
// Some of Cline's texts grow firmer with it
// (formatResponse.writeToFileMissingContentError).
type mistakeCounter struct {
	mu sync.Mutex
	n  int
}

// see counts a call when it is queued, in block order, and returns the
// count after it: one more for an invalid input, zero for a call whose
// input checked out; a call that ended for another reason before running
// (an unknown tool, a client-side one) leaves the count as it was.
func (m *mistakeCounter) see(cs *callState) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case cs.end == nil:
		m.n = 0
	case cs.end.status == api.StatusInvalid:
		m.n++
	}
	return m.n
}
