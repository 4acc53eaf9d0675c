package server

import (
	"crypto/sha256"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/randid"
)

// A browser cannot send a bearer token when it opens a preview URL, nor
// when the page loads its scripts or opens its WebSocket. So a preview
// admits, besides the token, an SSE ticket for its session once: the
// first request carries ?ticket=, is answered with a redirect to the same
// URL without it, and sets a cookie that admits that one port's preview of
// that session (HttpOnly, SameSite=Strict, its Path the port's prefix)
// with the ticket minter's scopes. The cookie's value is random and only
// its hash is kept; it lapses after previewIdle without use.

const (
	previewCookie = "toolgate_preview"
	previewIdle   = 30 * time.Minute
	maxPreviews   = 256
)

// previewGrant is what a preview cookie admits.
type previewGrant struct {
	session string
	port    string
	minter  principal
	expires time.Time
}

// previewStore keeps the preview cookies' grants by their hash.
type previewStore struct {
	mu      sync.Mutex
	entries map[[32]byte]previewGrant
}

// mint returns a cookie value for a port's preview.
func (ps *previewStore) mint(g previewGrant) string {
	v := randid.Base64URL(32)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.entries == nil {
		ps.entries = map[[32]byte]previewGrant{}
	}
	now := time.Now()
	for k, e := range ps.entries {
		if !now.Before(e.expires) || len(ps.entries) >= maxPreviews {
			delete(ps.entries, k) // expired, or the store is full: any old one goes
		}
	}
	g.expires = now.Add(previewIdle)
	ps.entries[sha256.Sum256([]byte(v))] = g
	return v
}

// redeem returns the grant of a cookie value for session and port, and
// extends it.
func (ps *previewStore) redeem(v, session, port string) (principal, bool) {
	key := sha256.Sum256([]byte(v))
	now := time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	g, ok := ps.entries[key]
	if !ok || g.session != session || g.port != port || !now.Before(g.expires) {
		return principal{}, false
	}
	g.expires = now.Add(previewIdle)
	ps.entries[key] = g
	return g.minter, true
}

// previewTarget reads the session and port a preview path names
// (/v1/sessions/{sid}/ports/{port}/...), as chi routes it.
func previewTarget(r *http.Request) (sid, port, prefix string, ok bool) {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	rest, ok := strings.CutPrefix(path, "/v1/sessions/")
	if !ok {
		return "", "", "", false
	}
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) < 3 || parts[1] != "ports" || parts[0] == "" {
		return "", "", "", false
	}
	if _, err := strconv.Atoi(parts[2]); err != nil {
		return "", "", "", false
	}
	sid, err := url.PathUnescape(parts[0])
	if err != nil {
		return "", "", "", false
	}
	return sid, parts[2], "/v1/sessions/" + parts[0] + "/ports/" + parts[2] + "/", true
}

// previewFor admits a preview request by its cookie, or by a ticket, which
// it trades for a cookie: it then answers the request itself with a
// redirect to the URL without the ticket (answered true).
func (s *Server) previewFor(w http.ResponseWriter, r *http.Request) (p principal, ok, answered bool) {
	sid, port, prefix, isPreview := previewTarget(r)
	if !isPreview {
		return principal{}, false, false
	}
	if c, err := r.Cookie(previewCookie); err == nil {
		if p, ok := s.previews.redeem(c.Value, sid, port); ok {
			return p, true, false
		}
	}
	ticket := r.URL.Query().Get("ticket")
	if ticket == "" || r.Method != http.MethodGet {
		return principal{}, false, false
	}
	minter, ok := s.tickets.redeem(ticket, sid)
	if !ok {
		return principal{}, false, false
	}
	http.SetCookie(w, &http.Cookie{Name: previewCookie, Value: s.previews.mint(previewGrant{session: sid, port: port, minter: minter}),
		Path: prefix, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	u := *r.URL
	q := u.Query()
	q.Del("ticket")
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
	return minter, true, true
}

// dropPreviewCookie removes toolgate's cookie from a request passed on to
// a dev server.
func dropPreviewCookie(r *http.Request) {
	cookies := r.Cookies()
	r.Header.Del("Cookie")
	for _, c := range cookies {
		if c.Name != previewCookie {
			r.AddCookie(c)
		}
	}
}
