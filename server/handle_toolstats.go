package server

import "net/http"

// handleToolStats answers each tool's calls, errors and latency minute by
// minute over the last hour: the console's charts, drawn from the
// server's own figures without a Prometheus server.
func (s *Server) handleToolStats(w http.ResponseWriter, r *http.Request) error {
	s.encode(w, r, http.StatusOK, s.coord.ToolStats())
	return nil
}
