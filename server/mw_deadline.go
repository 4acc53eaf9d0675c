package server

import (
	"net/http"
	"time"
)

// setBodyDeadline bounds the time a client may take to send a request body
// (read_timeout): a body trickled in a byte at a time would otherwise hold
// a connection and a handler forever, as only the headers have a timeout.
// It is not the http.Server's ReadTimeout, which would also end event
// streams and long calls: net/http lifts a connection's read deadline once
// the body has been read to its end (when it starts watching for the
// client going away), so the answer may take as long as the call needs.
// Requests without a body get no deadline at all.
func (s *Server) setBodyDeadline(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		// An error means a writer without a connection, as in tests.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.readTimeout()))
	}
}
