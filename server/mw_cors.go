package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
)

// CORS for web clients (IDE extensions in a browser tab, webviews). The
// Origin itself is judged by hostAndOriginAllowed, which runs first: by the
// time serveCORS sees a request its Origin, if any, is allowed. Credentials are
// never allowed (the token travels in Authorization, not in cookies), and
// the allow-origin header always echoes one origin, never "*".

// corsAllowHeaders are the request headers a cross-origin client may send.
// Accept is safelisted by browsers and needs no mention; Prefer lets a web
// client ask for a 202 while a call waits for a person (handle_prefer.go).
const corsAllowHeaders = "Authorization, Content-Type, Last-Event-ID, Prefer"

// corsAllowMethods are the methods the /v1 routes use.
const corsAllowMethods = "GET, POST, PATCH, DELETE"

// corsExposeHeaders are the response headers a cross-origin client may read.
const corsExposeHeaders = "Location, WWW-Authenticate, Retry-After, Preference-Applied"

// serveCORS answers preflights from allowed origins and marks responses to them
// readable. A preflight never reaches the token check: browsers send it
// without the Authorization header.
func (s *Server) serveCORS(w http.ResponseWriter, r *http.Request, next http.Handler) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		next.ServeHTTP(w, r)
		return
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Origin", origin)
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		next.ServeHTTP(w, r)
		return
	}
	h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
	h.Set("Access-Control-Allow-Methods", corsAllowMethods)
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// crossSiteWithoutOrigin reports a request that the browser says comes from
// another site but that carries no Origin: a no-cors subresource load such
// as <script src> or <img src>. Only top-level navigations (a link to the
// console) are left alone.
func crossSiteWithoutOrigin(r *http.Request) bool {
	return r.Header.Get("Origin") == "" &&
		r.Header.Get("Sec-Fetch-Site") == "cross-site" &&
		r.Header.Get("Sec-Fetch-Mode") != "navigate"
}

// originRules is the configured origin allowlist: exact origins and
// patterns with one "*" in the host.
type originRules struct {
	exact    map[string]bool
	patterns []originPattern
}

// originPattern is one of three shapes: "scheme://*" (any host; refused
// for http and https, where it would mean every web site),
// "scheme://*.example.com" (any subdomain) and "scheme://host:*" (any port).
type originPattern struct {
	scheme, host string
	kind         patternKind
}

type patternKind int

const (
	anyHost patternKind = iota
	anySubdomain
	anyPort
)

// compileOrigins parses the allowlist. Entries that would amount to a
// wildcard, or that fit none of the pattern shapes, are dropped with a
// warning: no web page may be allowed by accident.
func compileOrigins(entries []string, logger *slog.Logger) originRules {
	rules := originRules{exact: map[string]bool{}}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(e), "/"))
		if !strings.Contains(e, "*") {
			rules.exact[e] = true
			continue
		}
		p, ok := parseOriginPattern(e)
		if !ok {
			logger.Warn("origin pattern ignored", "pattern", e,
				"reason", `patterns are scheme://* (not http or https), scheme://*.domain.tld or scheme://host:*`)
			continue
		}
		rules.patterns = append(rules.patterns, p)
	}
	return rules
}

// CheckOrigins reports the allowed_origins entries the server would drop:
// patterns that fit no accepted shape (or would admit every web page) and
// entries that are not an origin at all, so that a config naming them can
// be refused at start-up instead of quietly allowing less than it says.
func CheckOrigins(entries []string) error {
	var errs []error
	for _, raw := range entries {
		e := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(raw), "/"))
		if strings.Contains(e, "*") {
			if _, ok := parseOriginPattern(e); !ok {
				errs = append(errs, fmt.Errorf("allowed_origins: %q: patterns are scheme://* (not http or https), scheme://*.domain.tld or scheme://host:*", raw))
			}
			continue
		}
		if u, err := url.Parse(e); err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			errs = append(errs, fmt.Errorf("allowed_origins: %q is not an origin (scheme://host[:port])", raw))
		}
	}
	return errors.Join(errs...)
}

func parseOriginPattern(e string) (originPattern, bool) {
	scheme, host, ok := strings.Cut(e, "://")
	if !ok || !validScheme(scheme) || strings.Count(host, "*") != 1 || strings.ContainsAny(host, "/?#@[]") {
		return originPattern{}, false
	}
	web := scheme == "http" || scheme == "https"
	switch {
	case host == "*" && !web:
		return originPattern{scheme: scheme, kind: anyHost}, true
	case strings.HasPrefix(host, "*.") && validHost(host[2:]) && (!web || strings.Contains(host[2:], ".") || host == "*.localhost"):
		return originPattern{scheme: scheme, host: host[1:], kind: anySubdomain}, true
	case strings.HasSuffix(host, ":*") && validHost(host[:len(host)-2]):
		return originPattern{scheme: scheme, host: host[:len(host)-1], kind: anyPort}, true
	}
	return originPattern{}, false
}

func validScheme(s string) bool {
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// validHost accepts a lowercase DNS name or IPv4 address, no port.
func validHost(h string) bool {
	return h != "" && strings.Trim(h, "abcdefghijklmnopqrstuvwxyz0123456789-.") == "" &&
		!strings.HasPrefix(h, ".") && !strings.HasSuffix(h, ".")
}

// allows reports whether origin is on the list. "null" (sandboxed frames,
// file: pages) never is.
func (o originRules) allows(origin string) bool {
	origin = strings.ToLower(origin)
	if origin == "null" {
		return false
	}
	if o.exact[origin] {
		return true
	}
	scheme, host, ok := strings.Cut(origin, "://")
	if !ok || host == "" {
		return false
	}
	for _, p := range o.patterns {
		if p.matches(scheme, host) {
			return true
		}
	}
	return false
}

func (p originPattern) matches(scheme, host string) bool {
	if scheme != p.scheme {
		return false
	}
	switch p.kind {
	case anyHost:
		return validHost(host) || strings.Count(host, ":") == 1 && validHostPort(host)
	case anySubdomain:
		hostOnly, _, _ := strings.Cut(host, ":")
		label, ok := strings.CutSuffix(hostOnly, p.host)
		return ok && validHost(label) && (hostOnly == host || validHostPort(host))
	case anyPort:
		port, ok := strings.CutPrefix(host, p.host)
		return ok && port != "" && strings.Trim(port, "0123456789") == "" && len(port) <= 5
	}
	return false
}

func validHostPort(hp string) bool {
	h, port, ok := strings.Cut(hp, ":")
	return ok && validHost(h) && port != "" && strings.Trim(port, "0123456789") == "" && len(port) <= 5
}
