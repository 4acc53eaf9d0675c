package server

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/toolgate/toolgate/api"
)

// handleEvents streams every event of a session. Last-Event-ID resumes after
// that id, as far back as the session's bounded log reaches. A stream
// opened with a ticket and no Last-Event-ID resumes where the ticket's
// streams stopped (see tickets.go).
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) error {
	grant, ticketed := r.Context().Value(ticketSessionKey{}).(ticketGrant)
	if ticketed && grant.session != chi.URLParam(r, "sid") {
		return errorf(api.CodeUnauthorized, "the ticket is for another session")
	}
	sess, err := s.session(r)
	if err != nil {
		return err
	}
	var after int64
	v := r.Header.Get("Last-Event-ID")
	if v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return &api.Error{Code: api.CodeBadRequest, Message: "Last-Event-ID must be an event id (an integer)"}
		}
		after = n
	}
	spec := streamSpec{log: sess.Events, done: sess.Done()}
	if f := r.URL.Query().Get("follow"); f != "" {
		follow, err := strconv.ParseBool(f)
		if err != nil {
			return &api.Error{Code: api.CodeBadRequest, Message: "follow must be true or false"}
		}
		spec.noFollow = !follow
	}
	if ticketed {
		if stopped, ok := s.tickets.attach(grant.ticket); ok {
			defer s.tickets.detach(grant.ticket)
			if v == "" {
				after = stopped
			}
			spec.sent = func(id int64) { s.tickets.advance(grant.ticket, id) }
		}
	}
	spec.after = after
	defer sess.Hold()() // an open stream keeps its session from expiring
	s.streams.serve(w, r, spec)
	return nil
}
