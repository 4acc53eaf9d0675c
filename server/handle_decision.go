package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
)

// handleDecision approves or rejects a call awaiting approval.
func (s *Server) handleDecision(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	var req api.DecisionRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	resp, err := s.coord.Decide(sess, chi.URLParam(r, "tool_use_id"), req, principalOf(r.Context()).name)
	if err != nil {
		return err
	}
	s.encode(w, r, http.StatusOK, resp)
	return nil
}
