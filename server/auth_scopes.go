package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/api"
)

// Scope is a set of the authorities a token carries. The split follows who
// holds the token: an agent loop posts calls (call), a person or their IDE
// decides them (approve), an operator changes rules and reads the audit
// (admin), a Prometheus server scrapes (metrics). A client that posts
// calls must not approve them unless it was given approve on purpose.
type Scope uint8

const (
	// ScopeCall posts tool calls and messages, reads sessions, their
	// calls and events, cancels and interrupts.
	ScopeCall Scope = 1 << iota
	// ScopeApprove decides approvals, answers questions and reverts edits.
	ScopeApprove
	// ScopeAdmin changes a session's mode and rules and reads the audit.
	ScopeAdmin
	// ScopeMetrics scrapes /metrics when metrics_require_token is set.
	ScopeMetrics

	// AllScopes is the server token's: TOOLGATE_TOKEN keeps doing
	// everything, so the two-command start needs no tokens file.
	AllScopes = ScopeCall | ScopeApprove | ScopeAdmin | ScopeMetrics
)

// scopeNames are the scopes as config and errors spell them, in bit order.
var scopeNames = []string{"call", "approve", "admin", "metrics"}

// ParseScopes reads scope names ("call", "approve", ...); an unknown or
// missing one is an error that lists the known ones.
func ParseScopes(names []string) (Scope, error) {
	var s Scope
	for _, n := range names {
		i := slices.Index(scopeNames, strings.TrimSpace(n))
		if i < 0 {
			return 0, fmt.Errorf("unknown scope %q (known: %s)", n, strings.Join(scopeNames, ", "))
		}
		s |= 1 << i
	}
	if s == 0 {
		return 0, fmt.Errorf("a token needs at least one scope (%s)", strings.Join(scopeNames, ", "))
	}
	return s, nil
}

// String lists the scopes joined by commas, in a fixed order.
func (s Scope) String() string {
	var out []string
	for i, n := range scopeNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// NamedToken is one token of the tokens file or config. Only the token's
// SHA-256 is kept, so the config and a memory dump hold nothing usable.
type NamedToken struct {
	// Name says who holds the token; the audit log records decisions as
	// "token:NAME".
	Name string `json:"name"`
	// SHA256 is the hex SHA-256 of the token (`toolgate token new` makes
	// a token and prints this line).
	SHA256 string `json:"sha256"`
	// Scopes are what the token may do: call, approve, admin, metrics.
	Scopes []string `json:"scopes"`
}

// principal is who made a request: the name the audit records and the
// scopes the routes check.
type principal struct {
	name   string
	scopes Scope
}

type principalKey struct{}

// withPrincipal returns r carrying p.
func withPrincipal(r *http.Request, p principal) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
}

// principalOf is who made the request; the zero principal (no scopes)
// when no token admitted it.
func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// serverTokenName is how the audit names the all-scopes server token, as
// it always has.
const serverTokenName = "token"

// tokenTable finds a principal by the SHA-256 of a presented token.
type tokenTable map[[32]byte]principal

// newTokenTable checks and indexes the named tokens: each needs a unique
// name, a 64-digit hex hash and known scopes. Every problem is listed.
func newTokenTable(tokens []NamedToken) (tokenTable, error) {
	t := tokenTable{}
	names := map[string]bool{}
	var errs []string
	for i, nt := range tokens {
		where := fmt.Sprintf("tokens[%d]", i)
		if nt.Name != "" {
			where = fmt.Sprintf("token %q", nt.Name)
		}
		scopes, err := ParseScopes(nt.Scopes)
		if err != nil {
			errs = append(errs, where+": "+err.Error())
		}
		sum, herr := hex.DecodeString(nt.SHA256)
		switch {
		case nt.Name == "" || strings.ContainsAny(nt.Name, " \t:,"):
			errs = append(errs, where+": a name without spaces, colons or commas is required")
		case names[nt.Name]:
			errs = append(errs, where+": the name is used twice")
		case herr != nil || len(sum) != sha256.Size:
			errs = append(errs, where+": sha256 must be 64 hex digits")
		case err == nil:
			if _, dup := t[[32]byte(sum)]; dup {
				errs = append(errs, where+": the same token is listed twice")
			}
			t[[32]byte(sum)] = principal{name: serverTokenName + ":" + nt.Name, scopes: scopes}
		}
		names[nt.Name] = true
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("tokens: %s", strings.Join(errs, "; "))
	}
	return t, nil
}

// CheckTokens checks named tokens as New will index them, listing every
// problem, so the config check at start-up refuses a bad tokens file.
func CheckTokens(tokens []NamedToken) error {
	_, err := newTokenTable(tokens)
	return err
}

// needs admits a request whose principal holds at least one of scopes,
// and answers 403 naming the scope otherwise, so a client learns which
// token it should have used.
func (s *Server) needs(scopes Scope) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if principalOf(r.Context()).scopes&scopes != 0 {
				next.ServeHTTP(w, r)
				return
			}
			s.writeError(w, r, errorf(api.CodeForbiddenScope,
				"this token may not do that: it needs the "+strings.ReplaceAll(scopes.String(), ",", " or ")+" scope"))
		})
	}
}

// metricsGate leaves /metrics open unless metrics_require_token is set;
// then it needs a token with the metrics scope (a ticket never admits it).
func (s *Server) metricsGate(next http.Handler) http.Handler {
	if !s.cfg.MetricsRequireToken {
		return next
	}
	gate := s.needs(ScopeMetrics)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		p, known := s.principalFor(got)
		if !ok || !known {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
			s.writeError(w, r, errorf(api.CodeUnauthorized, "metrics_require_token is set: a bearer token with the metrics scope is required"))
			return
		}
		gate.ServeHTTP(w, withPrincipal(r, p))
	})
}
