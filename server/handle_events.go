package server

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/toolgate/toolgate/api"
)

// handleEvents streams every event of a session. Last-Event-ID resumes after
// that id, as far back as the session's bounded log reaches.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	if sid, ok := r.Context().Value(ticketSessionKey{}).(string); ok && sid != chi.URLParam(r, "sid") {
		s.writeError(w, r, errorf(api.CodeUnauthorized, "the ticket is for another session"))
		return
	}
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	var after int64
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			s.writeError(w, r, &api.Error{Code: api.CodeBadRequest, Message: "Last-Event-ID must be an event id (an integer)"})
			return
		}
		after = n
	}
	defer sess.Hold()() // an open stream keeps its session from expiring
	s.streams.serve(w, r, streamSpec{log: sess.Events, after: after, done: sess.Done()})
}
