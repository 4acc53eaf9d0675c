package server

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/toolgate/toolgate/api"
)

// handleEvents streams every event of a session. Last-Event-ID resumes after
// that id, as far back as the session's bounded log reaches.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) error {
	if sid, ok := r.Context().Value(ticketSessionKey{}).(string); ok && sid != chi.URLParam(r, "sid") {
		return errorf(api.CodeUnauthorized, "the ticket is for another session")
	}
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	var after int64
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return &api.Error{Code: api.CodeBadRequest, Message: "Last-Event-ID must be an event id (an integer)"}
		}
		after = n
	}
	defer sess.Hold()() // an open stream keeps its session from expiring
	s.streams.serve(w, r, streamSpec{log: sess.Events, after: after, done: sess.Done()})
	return nil
}
