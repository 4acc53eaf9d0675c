package server

import (
	"mime"
	"net/http"

	"github.com/toolgate/toolgate/api"
)

// requireJSON refuses request bodies that are not application/json. A
// browser sends text/plain, form and multipart bodies cross-site without a
// preflight; JSON it does not, so this closes that door. Bodiless requests
// (cancel, interrupt) pass.
func (s *Server) requireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		hasBody := r.ContentLength > 0 || r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody
		if ct != "application/json" && (ct != "" || hasBody) { // the usual header needs no parsing
			mt, _, err := mime.ParseMediaType(ct)
			if err != nil || mt != "application/json" {
				s.writeError(w, r, errorf(api.CodeUnsupportedMedia, "request bodies must be application/json"))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
