package server

import (
	"net/http"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/api"
)

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	s.encode(w, r, http.StatusOK, map[string]any{"status": "ok", "sandbox": s.coord.SandboxInfo()})
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(toolgate.OpenAPI)
}

func (s *Server) handleNotFound(w http.ResponseWriter, r *http.Request) error {
	return errorf(api.CodeNotFound, "no route for "+r.Method+" "+r.URL.Path)
}

func (s *Server) handleMethodNotAllowed(w http.ResponseWriter, r *http.Request) error {
	return errorf(api.CodeMethodNotAllowed, "method "+r.Method+" is not allowed on "+r.URL.Path)
}
