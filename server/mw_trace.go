package server

import (
	"net/http"

	"github.com/toolgate/toolgate/internal/telemetry"
)

// traceContext makes a request's W3C traceparent the parent of the spans
// its calls make, so toolgate's spans join the client's trace (its agent
// span). Without tracing it is not in the chain at all.
func (s *Server) traceContext(next http.Handler) http.Handler {
	if !s.cfg.Tracing {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("traceparent") != "" {
			r = r.WithContext(telemetry.FromHeaders(r.Context(), r.Header))
		}
		next.ServeHTTP(w, r)
	})
}
