package server

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/api"
)

// loopbackHosts are always accepted in the Host header.
var loopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// checkHostAndOrigin refuses, before anything else runs, requests whose
// Host is not an allowed name (DNS rebinding: a page on evil.example that
// resolves to 127.0.0.1 sends Host evil.example) and requests carrying an
// Origin that is not allowed (a cross-site page in the user's browser).
func (s *Server) checkHostAndOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			s.writeError(w, r, errorf(api.CodeForbiddenHost, "host "+strconv.Quote(r.Host)+" is not allowed"))
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !s.originAllowed(origin, r.Host) {
			s.writeError(w, r, errorf(api.CodeForbiddenOrigin, "origin "+strconv.Quote(origin)+" is not allowed"))
			return
		}
		if crossSiteWithoutOrigin(r) {
			s.writeError(w, r, errorf(api.CodeForbiddenOrigin, "cross-site requests must carry an allowed Origin"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), ""
	}
	if s.cfg.Port != 0 && port != "" && port != strconv.Itoa(s.cfg.Port) {
		return false
	}
	host = strings.ToLower(host)
	return slices.Contains(loopbackHosts, host) || slices.Contains(s.cfg.AllowedHosts, host)
}

// originAllowed accepts the server's own origin (same-origin pages such as
// the console) and the configured ones (exact or patterns, see mw_cors.go).
// "null" and malformed origins fail.
func (s *Server) originAllowed(origin, requestHost string) bool {
	if s.origins.allows(origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, requestHost) && s.hostAllowed(u.Host)
}
