package server

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"
)

// instrument counts requests by route pattern, and times those that are
// not event streams.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// requestLog, outside, has wrapped the writer already: one wrapper
		// serves both.
		ww, ok := w.(middleware.WrapResponseWriter)
		if !ok {
			ww = middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		}
		next.ServeHTTP(ww, r)
		route := routePattern(r)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		s.metrics.requests.WithLabelValues(route, r.Method, strconv.Itoa(status)).Inc()
		// An event stream lasts as long as its client listens: its
		// length would swamp the latency of every other answer.
		if !strings.HasPrefix(ww.Header().Get("Content-Type"), "text/event-stream") {
			s.metrics.duration.WithLabelValues(route).Observe(time.Since(start).Seconds())
		}
	})
}
