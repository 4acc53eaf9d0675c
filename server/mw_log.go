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

type loggerKey struct{}

// logFrom returns the request's logger, or fallback outside a request.
func logFrom(r *http.Request, fallback *slog.Logger) *slog.Logger {
	if l, ok := r.Context().Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return fallback
}

// requestLog gives each request a logger carrying its id, and logs one line
// when it ends. The query string is never logged: it may carry a ticket.
func (s *Server) requestLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := middleware.GetReqID(r.Context())
		l := logattrs.With(s.logger, slog.String("request_id", id))
		ctx := coordinator.WithRequestID(context.WithValue(r.Context(), loggerKey{}, l), id)
		r = r.WithContext(ctx)
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		if !l.Enabled(context.Background(), slog.LevelInfo) { // as Info asks
			return // spare building the line's attributes
		}
		l.Info("http request",
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
