package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/api"
)

// ticketSessionKey marks a request let in by an SSE ticket; its value is a
// ticketGrant.
type ticketSessionKey struct{}

// ticketGrant is what a redeemed ticket admits.
type ticketGrant struct {
	session string // the session the ticket was minted for
	ticket  string // the ticket, for its stream to resume where it stopped
}

// requireToken refuses requests without the bearer token. Both sides are
// hashed first so the comparison takes the same time whatever the length.
// The one exception is a GET of a session's event stream carrying a valid
// ticket for that session (EventSource cannot send headers), and a
// subagent's token scoped to its child session, on that session's routes.
func (s *Server) requireToken(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.cfg.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		gotSum := sha256.Sum256([]byte(got))
		if ok && s.cfg.Token != "" && subtle.ConstantTimeCompare(gotSum[:], want[:]) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		if sid, scoped := s.coord.ScopedSession(got); ok && scoped && scopedAllows(r, sid) {
			next.ServeHTTP(w, r)
			return
		}
		if g, ok := s.ticketFor(r); ok {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ticketSessionKey{}, g)))
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
		s.writeError(w, r, errorf(api.CodeUnauthorized, "a valid bearer token is required (Authorization: Bearer <token>)"))
	})
}

// ticketFor redeems the request's ?ticket= if the request is a GET of
// /v1/sessions/{sid}/events, and reports the session it admits. The path is
// read the way chi routes it (the raw path when there is one), so the
// session named here is the one the events handler serves.
func (s *Server) ticketFor(r *http.Request) (ticketGrant, bool) {
	ticket := r.URL.Query().Get("ticket")
	if ticket == "" || r.Method != http.MethodGet {
		return ticketGrant{}, false
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	rest, ok := strings.CutPrefix(path, "/v1/sessions/")
	if !ok {
		return ticketGrant{}, false
	}
	sid, ok := strings.CutSuffix(rest, "/events")
	if !ok || sid == "" || strings.Contains(sid, "/") {
		return ticketGrant{}, false
	}
	return ticketGrant{session: sid, ticket: ticket}, s.tickets.redeem(ticket, sid)
}
