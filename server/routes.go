package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes is the whole HTTP surface, one line per route with the scope it
// needs. Middleware order is declared here once (middleware, below), then
// for /v1 the token and the JSON body check.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(s.middleware()...)
	r.NotFound(s.handle(s.handleNotFound))
	r.MethodNotAllowed(s.handle(s.handleMethodNotAllowed))

	r.Get("/healthz", s.handleHealth)
	r.With(s.metricsGate).Method(http.MethodGet, "/metrics", promhttp.HandlerFor(s.gather, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	r.Get("/openapi.yaml", s.handleOpenAPI)
	r.Get("/", s.handle(s.handleConsole))
	r.Get("/console/{file}", s.handle(s.handleConsoleFile))

	mcpFacade := s.mcpHandler() // the MCP streamable HTTP transport: POST messages, GET stream, DELETE session
	r.With(s.requireToken, s.needs(ScopeCall)).Post("/mcp", mcpFacade.ServeHTTP)
	r.With(s.requireToken, s.needs(ScopeCall)).Get("/mcp", mcpFacade.ServeHTTP)
	r.With(s.requireToken, s.needs(ScopeCall)).Delete("/mcp", mcpFacade.ServeHTTP)
	// A session's port previews: a dev server's pages, forms and API, any
	// body type, with a bearer token or a preview cookie (preview_auth.go).
	r.With(s.requireToken, s.needs(ScopeCall)).Get("/v1/sessions/{sid}/ports/{port}", s.handle(s.handlePortRoot))
	for _, m := range previewMethods {
		r.With(s.requireToken, s.needs(ScopeCall)).Method(m, "/v1/sessions/{sid}/ports/{port}/*", s.handle(s.handlePortProxy))
	}
	r.Route("/v1", func(r chi.Router) {
		r.Use(s.requireToken, s.requireJSON)
		// Each route needs one of the scopes it is listed under (auth_scopes.go).
		call, watch, approve, admin := s.needs(ScopeCall), s.needs(ScopeCall|ScopeApprove), s.needs(ScopeApprove), s.needs(ScopeAdmin)
		// Per-tool figures carry no ids or content, as /metrics: any token.
		figures := s.needs(AllScopes)
		r.With(call).Get("/tools", s.handle(s.handleListTools))
		r.With(call).Post("/tool_use", s.handle(s.handleToolUse))
		r.With(watch).Get("/sessions", s.handle(s.handleListSessions))
		r.With(call).Post("/sessions", s.handle(s.handleCreateSession))
		r.With(watch).Get("/sessions/{sid}", s.handle(s.handleGetSession))
		r.With(admin).Patch("/sessions/{sid}", s.handle(s.handleUpdateSession))
		r.With(call).Delete("/sessions/{sid}", s.handle(s.handleDeleteSession))
		r.With(call).Post("/sessions/{sid}/messages", s.handle(s.handlePostMessage))
		r.With(call).Post("/sessions/{sid}/messages/{mid}/blocks", s.handle(s.handlePostBlock))
		r.With(call).Post("/sessions/{sid}/messages/{mid}/complete", s.handle(s.handleCompleteMessage))
		r.With(call).Delete("/sessions/{sid}/messages/{mid}", s.handle(s.handleDiscardMessage))
		r.With(watch).Get("/sessions/{sid}/events", s.handle(s.handleEvents))
		r.With(watch).Get("/sessions/{sid}/calls", s.handle(s.handleListCalls))
		r.With(watch).Get("/sessions/{sid}/calls/{tool_use_id}", s.handle(s.handleGetCall))
		r.With(watch).Get("/sessions/{sid}/calls/{tool_use_id}/output", s.handle(s.handleCallOutput))
		r.With(call).Post("/sessions/{sid}/calls/{tool_use_id}/cancel", s.handle(s.handleCancelCall))
		r.With(approve).Post("/sessions/{sid}/calls/{tool_use_id}/revert", s.handle(s.handleRevert))
		r.With(approve).Post("/sessions/{sid}/calls/{tool_use_id}/decision", s.handle(s.handleDecision))
		r.With(approve).Post("/sessions/{sid}/calls/{tool_use_id}/answer", s.handle(s.handleAnswer))
		r.With(call).Post("/sessions/{sid}/interrupt", s.handle(s.handleInterrupt))
		r.With(watch).Get("/sessions/{sid}/jobs", s.handle(s.handleListJobs))
		r.With(watch).Get("/sessions/{sid}/jobs/{jid}", s.handle(s.handleGetJob))
		r.With(watch).Get("/sessions/{sid}/jobs/{jid}/output", s.handle(s.handleJobOutput))
		r.With(call).Delete("/sessions/{sid}/jobs/{jid}", s.handle(s.handleKillJob))
		r.With(call).Post("/sessions/{sid}/jobs/{jid}/stdin", s.handle(s.handleJobStdin))
		r.With(watch).Get("/sessions/{sid}/ports", s.handle(s.handleListPorts))
		r.With(watch).Post("/sse-tickets", s.handle(s.handleCreateTicket))
		r.With(call).Get("/mcp/servers", s.handleMCPServers)
		r.With(watch).Get("/approvals", s.handle(s.handleListApprovals))
		r.With(figures).Get("/tool-stats", s.handle(s.handleToolStats))
		r.With(admin).Get("/audit", s.handle(s.handleAudit))
		r.With(admin).Get("/audit/export", s.handle(s.handleAuditExport))
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
