package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes is the whole HTTP surface, one line per route. Middleware order is
// declared here once (middleware, below), then for /v1 the token and the
// JSON body check.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(s.middleware()...)
	r.NotFound(s.handleNotFound)
	r.MethodNotAllowed(s.handleMethodNotAllowed)

	r.Get("/healthz", s.handleHealth)
	r.Method(http.MethodGet, "/metrics", promhttp.HandlerFor(s.gather, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	r.Get("/openapi.yaml", s.handleOpenAPI)
	r.Get("/", s.handleConsole)
	r.Get("/console/{file}", s.handleConsoleFile)

	mcpFacade := s.mcpHandler() // the MCP streamable HTTP transport: POST messages, GET stream, DELETE session
	r.With(s.requireToken).Post("/mcp", mcpFacade.ServeHTTP)
	r.With(s.requireToken).Get("/mcp", mcpFacade.ServeHTTP)
	r.With(s.requireToken).Delete("/mcp", mcpFacade.ServeHTTP)
	r.Route("/v1", func(r chi.Router) {
		r.Use(s.requireToken, s.requireJSON)
		r.Get("/tools", s.handleListTools)
		r.Post("/tool_use", s.handleToolUse)
		r.Post("/sessions", s.handleCreateSession)
		r.Get("/sessions/{sid}", s.handleGetSession)
		r.Patch("/sessions/{sid}", s.handleUpdateSession)
		r.Delete("/sessions/{sid}", s.handleDeleteSession)
		r.Post("/sessions/{sid}/messages", s.handlePostMessage)
		r.Post("/sessions/{sid}/messages/{mid}/blocks", s.handlePostBlock)
		r.Post("/sessions/{sid}/messages/{mid}/complete", s.handleCompleteMessage)
		r.Delete("/sessions/{sid}/messages/{mid}", s.handleDiscardMessage)
		r.Get("/sessions/{sid}/events", s.handleEvents)
		r.Get("/sessions/{sid}/calls", s.handleListCalls)
		r.Get("/sessions/{sid}/calls/{tool_use_id}", s.handleGetCall)
		r.Get("/sessions/{sid}/calls/{tool_use_id}/output", s.handleCallOutput)
		r.Post("/sessions/{sid}/calls/{tool_use_id}/cancel", s.handleCancelCall)
		r.Post("/sessions/{sid}/calls/{tool_use_id}/revert", s.handleRevert)
		r.Post("/sessions/{sid}/calls/{tool_use_id}/decision", s.handleDecision)
		r.Post("/sessions/{sid}/calls/{tool_use_id}/answer", s.handleAnswer)
		r.Post("/sessions/{sid}/interrupt", s.handleInterrupt)
		r.Get("/sessions/{sid}/jobs", s.handleListJobs)
		r.Get("/sessions/{sid}/jobs/{jid}", s.handleGetJob)
		r.Get("/sessions/{sid}/jobs/{jid}/output", s.handleJobOutput)
		r.Delete("/sessions/{sid}/jobs/{jid}", s.handleKillJob)
		r.Post("/sse-tickets", s.handleCreateTicket)
		r.Get("/mcp/servers", s.handleMCPServers)
		r.Get("/audit", s.handleAudit)
	})
	return r
}

// middleware is the order every request passes through, outermost first:
// request id, log, metrics, recover (inside those three, so a panic is
// logged under its request id and counted), the body read deadline,
// Host/Origin, CORS.
func (s *Server) middleware() []func(http.Handler) http.Handler {
	return []func(http.Handler) http.Handler{
		middleware.RequestID, s.requestLog, s.instrument, s.recoverer, s.bodyDeadline, s.checkHostAndOrigin, s.cors, s.traceContext,
	}
}
