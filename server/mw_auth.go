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

// requireToken refuses requests without a known bearer token and tells
// the routes who made the request (principalOf): the server token (every
// scope), a named token from the tokens file or config (its scopes), a
// subagent's token scoped to its child session (call, on that session's
// routes only), or a ticket for a session's event stream (EventSource
// cannot send headers), which carries the scopes of the token that made
// it.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if p, known := s.principalFor(got); ok && known {
			next.ServeHTTP(w, withPrincipal(r, p))
			return
		}
		if sid, scoped := s.coord.ScopedSession(got); ok && scoped && scopedAllows(r, sid) {
			next.ServeHTTP(w, withPrincipal(r, principal{name: "subagent", scopes: ScopeCall}))
			return
		}
		if p, ok, answered := s.previewFor(w, r); ok {
			if !answered {
				next.ServeHTTP(w, withPrincipal(r, p))
			}
			return
		}
		if g, p, ok := s.ticketFor(r); ok {
			r = r.WithContext(context.WithValue(r.Context(), ticketSessionKey{}, g))
			next.ServeHTTP(w, withPrincipal(r, p))
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
		s.writeError(w, r, errorf(api.CodeUnauthorized, "a valid bearer token is required (Authorization: Bearer <token>)"))
	})
}

// principalFor finds the principal of a presented bearer token: the
// server token or a named one. The presented token is hashed first and
// the server token's hash compared in constant time, so neither the
// comparison nor the table lookup tells anything of a token's prefix.
func (s *Server) principalFor(token string) (principal, bool) {
	if token == "" {
		return principal{}, false
	}
	sum := sha256.Sum256([]byte(token))
	if s.cfg.Token != "" && subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) == 1 {
		return principal{name: serverTokenName, scopes: AllScopes}, true
	}
	p, ok := s.tokens[sum]
	return p, ok
}

// ticketFor redeems the request's ?ticket= if the request is a GET of
// /v1/sessions/{sid}/events, and reports the session it admits. The path is
// read the way chi routes it (the raw path when there is one), so the
// session named here is the one the events handler serves.
func (s *Server) ticketFor(r *http.Request) (ticketGrant, principal, bool) {
	ticket := r.URL.Query().Get("ticket")
	if ticket == "" || r.Method != http.MethodGet {
		return ticketGrant{}, principal{}, false
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	rest, ok := strings.CutPrefix(path, "/v1/sessions/")
	if !ok {
		return ticketGrant{}, principal{}, false
	}
	sid, ok := strings.CutSuffix(rest, "/events")
	if !ok || sid == "" || strings.Contains(sid, "/") {
		return ticketGrant{}, principal{}, false
	}
	p, ok := s.tickets.redeem(ticket, sid)
	return ticketGrant{session: sid, ticket: ticket}, p, ok
}
