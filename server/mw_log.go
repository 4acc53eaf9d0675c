package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/toolgate/toolgate/coordinator"
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

// requestLog passes the request's id on to the calls it brings, and logs
// one line when the request ends. The query string is never logged: it
// may carry a ticket.
func (s *Server) requestLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		r = r.WithContext(coordinator.WithRequestID(r.Context(), middleware.GetReqID(r.Context())))
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		if !s.logger.Enabled(context.Background(), slog.LevelInfo) { // as Info asks
			return // spare building the line and its logger
		}
		logFrom(r, s.logger).Info("http request",
			"method", r.Method, "path", r.URL.Path, "route", routePattern(r),
			"status", ww.Status(), "bytes", ww.BytesWritten(),
			"duration_ms", float64(time.Since(start).Microseconds())/1000)
	})
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
