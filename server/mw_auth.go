package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/api"
)

// requireToken refuses requests without the bearer token. Both sides are
// hashed first so the comparison takes the same time whatever the length.
func (s *Server) requireToken(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.cfg.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		gotSum := sha256.Sum256([]byte(got))
		if !ok || s.cfg.Token == "" || subtle.ConstantTimeCompare(gotSum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
			s.writeError(w, r, errorf(api.CodeUnauthorized, "a valid bearer token is required (Authorization: Bearer <token>)"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
