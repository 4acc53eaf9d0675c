package server

import (
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/toolgate/toolgate/internal/logattrs"
)

// logFrom returns the request's logger: fallback with the request's id,
// or fallback itself outside a request. It is made when a line is to be
// written, not for every request.
func logFrom(r *http.Request, fallback *slog.Logger) *slog.Logger {
	if id, ok := r.Context().Value(middleware.RequestIDKey).(string); ok {
		return logattrs.With(fallback, slog.String("request_id", id))
	}
	return fallback
}

// routePattern is chi's pattern for the matched route, a bounded label.
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}
