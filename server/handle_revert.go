package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// handleRevert puts back the file a call wrote, as it was before the call.
// A file changed since the call is left alone: 409 file_changed says why.
func (s *Server) handleRevert(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	resp, err := s.coord.Revert(sess, chi.URLParam(r, "tool_use_id"))
	if err != nil {
		return err
	}
	s.encode(w, r, http.StatusOK, resp)
	return nil
}
