package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes is the whole HTTP surface, one line per route. Middleware order is
// declared here once (middleware, below), then for /v1 the token and the
// JSON body check.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(s.middleware()...)
	r.NotFound(s.handle(s.handleNotFound))
	r.MethodNotAllowed(s.handle(s.handleMethodNotAllowed))

	r.Get("/healthz", s.handleHealth)
	r.Method(http.MethodGet, "/metrics", promhttp.HandlerFor(s.gather, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	r.Get("/openapi.yaml", s.handleOpenAPI)
	r.Get("/", s.handle(s.handleConsole))
	r.Get("/console/{file}", s.handle(s.handleConsoleFile))

	mcpFacade := s.mcpHandler() // the MCP streamable HTTP transport: POST messages, GET stream, DELETE session
	r.With(s.requireToken).Post("/mcp", mcpFacade.ServeHTTP)
	r.With(s.requireToken).Get("/mcp", mcpFacade.ServeHTTP)
	r.With(s.requireToken).Delete("/mcp", mcpFacade.ServeHTTP)
	r.Route("/v1", func(r chi.Router) {
		r.Use(s.requireToken, s.requireJSON)
		r.Get("/tools", s.handle(s.handleListTools))
		r.Post("/tool_use", s.handle(s.handleToolUse))
		r.Post("/sessions", s.handle(s.handleCreateSession))
		r.Get("/sessions/{sid}", s.handle(s.handleGetSession))
		r.Patch("/sessions/{sid}", s.handle(s.handleUpdateSession))
		r.Delete("/sessions/{sid}", s.handle(s.handleDeleteSession))
		r.Post("/sessions/{sid}/messages", s.handle(s.handlePostMessage))
		r.Post("/sessions/{sid}/messages/{mid}/blocks", s.handle(s.handlePostBlock))
		r.Post("/sessions/{sid}/messages/{mid}/complete", s.handle(s.handleCompleteMessage))
		r.Delete("/sessions/{sid}/messages/{mid}", s.handle(s.handleDiscardMessage))
		r.Get("/sessions/{sid}/events", s.handle(s.handleEvents))
		r.Get("/sessions/{sid}/calls", s.handle(s.handleListCalls))
		r.Get("/sessions/{sid}/calls/{tool_use_id}", s.handle(s.handleGetCall))
		r.Get("/sessions/{sid}/calls/{tool_use_id}/output", s.handle(s.handleCallOutput))
		r.Post("/sessions/{sid}/calls/{tool_use_id}/cancel", s.handle(s.handleCancelCall))
		r.Post("/sessions/{sid}/calls/{tool_use_id}/revert", s.handle(s.handleRevert))
		r.Post("/sessions/{sid}/calls/{tool_use_id}/decision", s.handle(s.handleDecision))
		r.Post("/sessions/{sid}/calls/{tool_use_id}/answer", s.handle(s.handleAnswer))
		r.Post("/sessions/{sid}/interrupt", s.handle(s.handleInterrupt))
		r.Get("/sessions/{sid}/jobs", s.handle(s.handleListJobs))
		r.Get("/sessions/{sid}/jobs/{jid}", s.handle(s.handleGetJob))
		r.Get("/sessions/{sid}/jobs/{jid}/output", s.handle(s.handleJobOutput))
		r.Delete("/sessions/{sid}/jobs/{jid}", s.handle(s.handleKillJob))
		r.Post("/sse-tickets", s.handle(s.handleCreateTicket))
		r.Get("/mcp/servers", s.handleMCPServers)
		r.Get("/audit", s.handle(s.handleAudit))
	})
	return r
}

// middleware is what every request passes through before its route: one
// layer (front) doing, outermost first, the request id, the log line, the
// metrics, the recovery (inside those three, so a panic is logged under
// its request id and counted), the body read deadline, Host/Origin, CORS
// and the trace context.
func (s *Server) middleware() []func(http.Handler) http.Handler {
	return []func(http.Handler) http.Handler{s.front}
}
