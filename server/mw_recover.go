package server

import (
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/toolgate/toolgate/api"
)

// recoverer turns a panic in a route handler into a 500 with the usual
// error body, and keeps the server running. It sits inside the request id,
// the request log and the metrics, so the panic is logged under the
// request's id, the 500 is counted with its route, and
// toolgate_http_panics_total goes up.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.metrics.panics.Inc()
			logFrom(r, s.logger).Error("handler panicked", "route", routePattern(r), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			s.writeError(w, r, errorf(api.CodeInternal, "internal error"))
		}()
		next.ServeHTTP(w, r)
	})
}
