package coordinator

import (
	"sort"

	"github.com/toolgate/toolgate/api"
)

// PendingApprovals lists the calls of every session that await a decision
// now, the one whose deadline comes first first: an approvals inbox, so a
// person need not watch each session's event stream to find them.
func (c *Coordinator) PendingApprovals() []api.PendingApproval {
	out := []api.PendingApproval{}
	for _, s := range c.sessions.List() {
		p := &s.policy
		p.mu.Lock()
		for _, pa := range p.pending {
			// A call is listed once it was announced: before that its
			// preview is still being made.
			if pa.shown != nil {
				out = append(out, *pa.shown)
			}
		}
		p.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Approval.Deadline.Equal(b.Approval.Deadline) {
			return a.Approval.Deadline.Before(b.Approval.Deadline)
		}
		return a.Call.ToolUseID < b.Call.ToolUseID
	})
	return out
}

// show records what the inbox lists for a call once its approval is
// announced.
func (p *sessionPolicy) show(pa *pendingApproval, sessionID string, rec api.CallRecord, a *api.Approval) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pa.shown = &api.PendingApproval{SessionID: sessionID, Call: rec, Approval: *a}
}
