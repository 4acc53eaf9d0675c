package server

import (
	"net/http"

	"github.com/toolgate/toolgate/api"
)

// handleListApprovals is the approvals inbox: every call of every session
// that waits for a decision now, with its preview, so whoever decides
// need not watch each session's event stream. The decision itself goes
// to the call's own decision route.
func (s *Server) handleListApprovals(w http.ResponseWriter, r *http.Request) error {
	s.encode(w, r, http.StatusOK, api.ApprovalsResponse{Approvals: s.coord.PendingApprovals()})
	return nil
}
