package server

import (
	"errors"
	"fmt"
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

// hostAndOriginAllowed refuses, before any route runs, requests whose
// Host is not an allowed name (DNS rebinding: a page on evil.example that
// resolves to 127.0.0.1 sends Host evil.example) and requests carrying an
// Origin that is not allowed (a cross-site page in the user's browser). It
// answers a refused request itself and reports false.
func (s *Server) hostAndOriginAllowed(w http.ResponseWriter, r *http.Request) bool {
	if !s.hostAllowed(r.Host) && !probeRoute(r) {
		s.writeError(w, r, errorf(api.CodeForbiddenHost, "host "+strconv.Quote(r.Host)+" is not allowed"))
		return false
	}
	if origin := r.Header.Get("Origin"); origin != "" && !s.originAllowed(origin, r.Host) {
		s.writeError(w, r, errorf(api.CodeForbiddenOrigin, "origin "+strconv.Quote(origin)+" is not allowed"))
		return false
	}
	if crossSiteWithoutOrigin(r) {
		s.writeError(w, r, errorf(api.CodeForbiddenOrigin, "cross-site requests must carry an allowed Origin"))
		return false
	}
	return true
}

// hostAllowed accepts a loopback name with any port (docker -p 8080:7420,
// an SSH tunnel or a local proxy forwards to toolgate under another port;
// a rebinding attack needs a name of the attacker's, never a loopback one),
// and a configured host: with the port its entry names, or, for an entry
// without one, the port toolgate listens on or none.
// probeRoute reports a health probe or a metrics scrape. Orchestrators
// address a pod by its IP, a Host no config can list, so these two routes
// skip the Host check; they hold no secret and change nothing, and the
// Origin and cross-site checks still apply to them.
func probeRoute(r *http.Request) bool {
	return r.Method == http.MethodGet && (r.URL.Path == "/healthz" || r.URL.Path == "/metrics")
}

func (s *Server) hostAllowed(hostport string) bool {
	host, port := splitHost(hostport)
	if slices.Contains(loopbackHosts, host) {
		return true
	}
	for _, h := range s.hosts {
		if h.name != host {
			continue
		}
		switch {
		case h.port != "":
			if port == h.port {
				return true
			}
		case port == "" || s.cfg.Port == 0 || port == strconv.Itoa(s.cfg.Port):
			return true
		}
	}
	return false
}

// hostRule is one allowed_hosts entry: a name, and a port if it names one.
type hostRule struct{ name, port string }

// splitHost parses "name", "name:port", "[v6]" or "[v6]:port", lowering
// the name.
func splitHost(hostport string) (host, port string) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), ""
	}
	return strings.ToLower(host), port
}

func compileHosts(entries []string) []hostRule {
	out := make([]hostRule, 0, len(entries))
	for _, e := range entries {
		name, port := splitHost(strings.TrimSpace(e))
		out = append(out, hostRule{name: name, port: port})
	}
	return out
}

// CheckHosts refuses allowed_hosts entries that are not a host name or
// address with an optional port, listing every bad one.
func CheckHosts(entries []string) error {
	var errs []error
	for _, raw := range entries {
		name, port := splitHost(strings.TrimSpace(raw))
		bad := name == "" || strings.ContainsAny(name, "/?#@* ") || strings.Contains(raw, "://")
		if port != "" {
			n, err := strconv.Atoi(port)
			bad = bad || err != nil || n < 1 || n > 65535
		}
		if bad {
			errs = append(errs, fmt.Errorf("allowed_hosts: %q is not a host[:port]", raw))
		}
	}
	return errors.Join(errs...)
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
