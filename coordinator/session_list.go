package coordinator

import (
	"time"

	"github.com/toolgate/toolgate/api"
)

// Summary is the session as GET /v1/sessions lists it: its kind and how
// many of its calls run or wait for a person now.
func (s *Session) Summary() api.SessionSummary {
	used := s.Created
	if n := s.lastUsed.Load(); n > 0 {
		used = time.Unix(0, n).UTC()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := api.SessionSummary{ID: s.ID, Mode: s.mode, Dialect: s.Dialect(), CreatedAt: s.Created, LastUsedAt: used, Calls: len(s.calls)}
	for _, e := range s.calls {
		switch e.record.State {
		case api.StateAwaitingApproval:
			out.AwaitingApproval++
		case api.StateRunning:
			out.Running++
		}
	}
	return out
}

// Summaries lists every live session, oldest first: those created since
// the start and those restored from the store.
func (s *Sessions) Summaries() []api.SessionSummary {
	live := s.List()
	out := make([]api.SessionSummary, 0, len(live))
	for _, sess := range live {
		out = append(out, sess.Summary())
	}
	return out
}
