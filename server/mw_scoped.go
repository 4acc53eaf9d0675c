package server

import (
	"net/http"
	"path"
	"strings"
)

// scopedRoutes are what a subagent's scoped token may do in its own child
// session, as "METHOD pattern" (path.Match syntax, relative to the
// session): post messages and watch its calls. It may not change the
// session's rules, decide its own approvals, answer questions, revert or
// delete the session.
var scopedRoutes = []string{
	"GET ", "GET /events", "GET /calls", "GET /calls/*", "GET /calls/*/output",
	"POST /messages", "POST /messages/*/blocks", "POST /messages/*/complete", "DELETE /messages/*",
	"POST /calls/*/cancel", "POST /interrupt",
}

// scopedAllows reports whether a request is one a token scoped to session
// sid may make. The path is read as chi routes it (the raw path when there
// is one), so the session checked is the one the handler serves.
func scopedAllows(r *http.Request, sid string) bool {
	p := r.URL.RawPath
	if p == "" {
		p = r.URL.Path
	}
	rest, ok := strings.CutPrefix(p, "/v1/sessions/"+sid)
	if !ok || rest != "" && rest[0] != '/' {
		return false
	}
	for _, route := range scopedRoutes {
		method, pattern, _ := strings.Cut(route, " ")
		if method != r.Method {
			continue
		}
		if ok, _ := path.Match(pattern, rest); ok || pattern == rest {
			return true
		}
	}
	return false
}
