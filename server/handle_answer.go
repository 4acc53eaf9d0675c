package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
)

// handleAnswer answers an interactive call in state awaiting_input.
func (s *Server) handleAnswer(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	var req api.AnswerRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	resp, err := s.coord.Answer(sess, chi.URLParam(r, "tool_use_id"), req)
	if err != nil {
		return err
	}
	s.encode(w, r, http.StatusOK, resp)
	return nil
}
