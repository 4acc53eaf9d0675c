package server

import (
	"context"
	"encoding/base64"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/randid"
)

// mcpFacade serves toolgate's own tools to MCP clients over the streamable
// HTTP transport. Every call goes through the coordinator in a toolgate
// session (?session=ID, else "default"), so validation, ignore rules,
// policy and approvals apply as they do to /v1 calls; approvals wait on
// the session's event stream like any other.
type mcpFacade struct {
	s       *Server
	mu      sync.Mutex
	servers map[string]*facadeServer // by toolgate session id
	// byDialect holds the session /mcp?dialect=X runs in when no session
	// is named.
	byDialect map[api.Dialect]string
}

// facadeServer is the MCP server of one toolgate session and the tool
// list it last offered.
type facadeServer struct {
	srv   *mcp.Server
	tools map[string]string // name -> description and schema
}

// mcpHandler builds the /mcp handler. The Host and Origin checks and the
// token are the router's middleware, so the SDK's own localhost check is
// left off: it would refuse the extra hosts the config allows. The cancel
// gate in front keeps responses to cancelled requests off the wire;
// acceptEither lets a client that accepts only one answer type post; a
// POST that names no MCP session and initializes none is answered
// statelessly.
func (s *Server) mcpHandler() http.Handler {
	f := &mcpFacade{s: s, servers: map[string]*facadeServer{}, byDialect: map[api.Dialect]string{}}
	opts := func(stateless bool) *mcp.StreamableHTTPOptions {
		return &mcp.StreamableHTTPOptions{
			Stateless:                  stateless,
			Logger:                     s.logger,
			DisableLocalhostProtection: true,
			MaxRequestBodyBytes:        s.cfg.MaxBodyBytes,
		}
	}
	return acceptEither(newCancelGate(sessionless(
		mcp.NewStreamableHTTPHandler(f.server, opts(false)),
		mcp.NewStreamableHTTPHandler(f.server, opts(true)), // mcp_sessionless.go
		s.cfg.MaxBodyBytes), s.cfg.MaxBodyBytes))
}

// server returns the session's MCP server with its tool list brought up
// to date (mode, deny rules, MCP servers that came and went); the SDK
// tells connected clients when the list changes.
func (f *mcpFacade) server(r *http.Request) *mcp.Server {
	id, d := r.URL.Query().Get("session"), api.Dialect(r.URL.Query().Get("dialect"))
	if !api.ValidDialect(d) {
		return nil
	}
	if id == "" && d != "" && d != api.DialectCline {
		id = f.dialectSession(d)
	}
	if id == "" {
		id = api.DefaultSessionID
	}
	sess, err := f.s.coord.Sessions().Get(id)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		delete(f.servers, id)
		return nil
	}
	if d != "" && sess.Dialect() != d {
		return nil
	}
	fs, ok := f.servers[id]
	if !ok {
		fs = &facadeServer{srv: mcp.NewServer(&mcp.Implementation{Name: "toolgate", Version: f.s.cfg.Version}, nil), tools: map[string]string{}}
		f.servers[id] = fs
	}
	f.sync(fs, sess)
	return fs.srv
}

// dialectSession is the session that /mcp?dialect=X serves when no session
// is named: one per dialect, created on first use and again when it was
// deleted or expired. "" when no session can be created.
func (f *mcpFacade) dialectSession(d api.Dialect) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id, ok := f.byDialect[d]; ok {
		if _, err := f.s.coord.Sessions().Get(id); err == nil {
			return id
		}
	}
	sess, err := f.s.coord.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		return ""
	}
	sess.Update(api.UpdateSessionRequest{Dialect: d})
	f.byDialect[d] = sess.ID
	return sess.ID
}

// sync adds, replaces and removes tools so the server offers exactly what
// the session may use.
func (f *mcpFacade) sync(fs *facadeServer, sess *coordinator.Session) {
	seen := map[string]bool{}
	for _, t := range f.s.coord.Tools(sess) {
		seen[t.Name] = true
		key := t.Description + "\x00" + string(t.InputSchema)
		if fs.tools[t.Name] == key {
			continue
		}
		fs.tools[t.Name] = key
		fs.srv.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}, f.call(sess, t.Name))
	}
	var gone []string
	for name := range fs.tools {
		if !seen[name] {
			gone = append(gone, name)
			delete(fs.tools, name)
		}
	}
	if len(gone) > 0 {
		fs.srv.RemoveTools(gone...)
	}
}

// call runs one MCP tools/call as a tool_use in the session, as a message
// of its own named by the call's id (so that its events are read from that
// message alone). Cancelling the MCP request (notifications/cancelled)
// cancels the call in whatever state it is. A request carrying a
// progressToken gets the call's partial output as progress notifications;
// a client that declared the elicitation capability gets each approval
// the call needs as an elicitation/create request.
func (f *mcpFacade) call(sess *coordinator.Session, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		use := api.ToolUse{Type: api.TypeToolUse, ID: facadeCallID(), Name: name, Input: req.Params.Arguments}
		over := make(chan struct{})
		defer close(over)
		defer cancelOnDone(ctx, sess, use.ID, over)()
		fl := follower{progress: req.Params.GetProgressToken() != nil}
		fl.approver, fl.elicit = f.approver(req)
		fl.elicit = fl.elicit && elicits(req)
		if !fl.progress && !fl.elicit {
			res, _ := f.s.coord.Execute(ctx, sess, use.ID, use)
			return mcpResult(res), nil
		}
		stop, followed := make(chan struct{}), make(chan struct{})
		after := sess.Events.LastID()
		go func() {
			defer close(followed)
			f.follow(ctx, req, sess, use.ID, after, stop, fl)
		}()
		res, _ := f.s.coord.Execute(ctx, sess, use.ID, use)
		close(stop)
		<-followed
		return mcpResult(res), nil
	}
}

// facadeCallID names an MCP call in the session's records and events.
func facadeCallID() string {
	return "mcp_" + randid.Hex(12)
}

// mcpResult maps a tool_result to an MCP result.
func mcpResult(res api.ToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: res.IsError, Content: make([]mcp.Content, 0, len(res.Content))}
	for _, c := range res.Content {
		if c.Type == api.TypeImage && c.Source != nil {
			if data, err := base64.StdEncoding.DecodeString(c.Source.Data); err == nil {
				out.Content = append(out.Content, &mcp.ImageContent{MIMEType: c.Source.MediaType, Data: data})
				continue
			}
		}
		out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
	}
	return out
}
