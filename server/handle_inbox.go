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

// handleToolStats answers each tool's calls, errors and latency minute by
// minute over the last hour: the console's charts, drawn from the
// server's own figures without a Prometheus server.
func (s *Server) handleToolStats(w http.ResponseWriter, r *http.Request) error {
	s.encode(w, r, http.StatusOK, s.coord.ToolStats())
	return nil
}
