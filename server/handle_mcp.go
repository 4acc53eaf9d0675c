package server

import (
	"net/http"

	"github.com/toolgate/toolgate/api"
)

// handleMCPServers shows each configured MCP server's state.
func (s *Server) handleMCPServers(w http.ResponseWriter, r *http.Request) {
	s.encode(w, r, http.StatusOK, api.MCPServersResponse{Servers: s.coord.MCPServers()})
}
