package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/toolgate/toolgate/api"
)

// handleAnswer answers an interactive call in state awaiting_input.
func (s *Server) handleAnswer(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	var req api.AnswerRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	resp, err := s.coord.Answer(sess, chi.URLParam(r, "tool_use_id"), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.encode(w, r, http.StatusOK, resp)
}
