package mcphub

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// Options tune a Hub; zero values take the defaults.
type Options struct {
	Logger *slog.Logger
	// MinBackoff and MaxBackoff bound the wait between reconnects.
	MinBackoff, MaxBackoff time.Duration
	// Version is announced to servers as the client version.
	Version string
	// Confine wraps the command of a stdio server whose entry says
	// "sandbox": true (argv, environment and working directory, "" for
	// the workspace); without it such a server is not started. The
	// coordinator sets it (SetConfine) when the hub is given to it.
	Confine ConfineFunc
}

// ConfineFunc prepares a command to run in the sandbox.
type ConfineFunc func(argv, env []string, dir string) (*sandbox.Prepared, error)

// Hub holds one connection per configured server. A nil *Hub is an empty
// hub: it lists nothing and refuses every call.
type Hub struct {
	logger  *slog.Logger
	opts    Options
	servers map[string]*server
	byClean map[string]*server // cleaned name -> server, for listed names
	names   []string

	cancel  context.CancelFunc
	wg      sync.WaitGroup
	confine atomic.Pointer[ConfineFunc]
}

// SetConfine sets how sandboxed stdio servers are confined, for servers
// started from now on.
func (h *Hub) SetConfine(f ConfineFunc) {
	if h != nil && f != nil {
		h.confine.Store(&f)
	}
}

// New builds a hub for the settings; Start connects it.
func New(s Settings, o Options) *Hub {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 500 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	h := &Hub{logger: o.Logger, opts: o, servers: map[string]*server{}, byClean: map[string]*server{}}
	for name, cfg := range s.MCPServers {
		srv := newServer(name, cfg, h)
		h.servers[name] = srv
		h.byClean[cleanServer(name)] = srv
		h.names = append(h.names, name)
	}
	sort.Strings(h.names)
	h.SetConfine(o.Confine)
	return h
}

// Start connects every enabled server in the background and returns at
// once: a slow or broken server never delays start-up.
func (h *Hub) Start(ctx context.Context) {
	if h == nil {
		return
	}
	ctx, h.cancel = context.WithCancel(ctx)
	for _, name := range h.names {
		srv := h.servers[name]
		if srv.cfg.Disabled {
			continue
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			srv.loop(ctx)
		}()
	}
}

// Close disconnects every server and stops their processes.
func (h *Hub) Close() {
	if h == nil || h.cancel == nil {
		return
	}
	h.cancel()
	h.wg.Wait()
}

// server finds a server by its configured or its cleaned name.
func (h *Hub) server(name string) (*server, error) {
	if h != nil {
		if s, ok := h.servers[name]; ok {
			return s, nil
		}
		if s, ok := h.byClean[name]; ok {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no MCP server named %q is configured", name)
}

// Servers reports each server's state, in name order.
func (h *Hub) Servers() []Status {
	out := []Status{}
	if h == nil {
		return out
	}
	for _, name := range h.names {
		out = append(out, h.servers[name].status())
	}
	return out
}

// Tool is an MCP tool as toolgate lists it.
type Tool struct {
	Server string
	Name   string
	// Listed is mcp__<server>__<tool>, cleaned.
	Listed string
	*mcp.Tool
}

// Tools lists every connected server's tools, in server order.
func (h *Hub) Tools() []Tool {
	if h == nil {
		return nil
	}
	var out []Tool
	for _, name := range h.names {
		for _, t := range h.servers[name].toolList() {
			out = append(out, Tool{Server: name, Name: t.Name, Listed: ListedName(name, t.Name), Tool: t})
		}
	}
	return out
}

// Listed is the mcp__<server>__<tool> name of a tool the server lists now,
// given either spelling of the server and tool; false when it lists no
// such tool.
func (h *Hub) Listed(server, tool string) (string, bool) {
	s, err := h.server(server)
	if err != nil {
		return "", false
	}
	t := s.findTool(tool)
	if t == nil {
		return "", false
	}
	return ListedName(s.name, t.Name), true
}

// AutoApprove reports whether a server's autoApprove list names a tool.
func (h *Hub) AutoApprove(server, tool string) bool {
	s, err := h.server(server)
	if err != nil {
		return false
	}
	if t := s.findTool(tool); t != nil {
		tool = t.Name
	}
	return slices.Contains(s.cfg.AutoApprove, tool)
}

// ReadOnly reports whether a tool declares readOnlyHint, which lets its
// calls run beside others.
func (h *Hub) ReadOnly(server, tool string) bool {
	s, err := h.server(server)
	if err != nil {
		return false
	}
	t := s.findTool(tool)
	return t != nil && t.Annotations != nil && t.Annotations.ReadOnlyHint
}

// CallTool calls a tool with the server's timeout. progress, if not nil,
// receives the server's progress messages. Cancelling ctx sends the server
// notifications/cancelled.
func (h *Hub) CallTool(ctx context.Context, server, tool string, args map[string]any, progress func(string)) (*mcp.CallToolResult, error) {
	s, err := h.server(server)
	if err != nil {
		return nil, err
	}
	return s.callTool(ctx, tool, args, progress)
}

// ReadResource reads a resource with the server's timeout.
func (h *Hub) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	s, err := h.server(server)
	if err != nil {
		return nil, err
	}
	return s.readResource(ctx, uri)
}

// Schema is a tool's input schema as JSON; a tool without one takes any
// object.
func Schema(t *mcp.Tool) json.RawMessage {
	if t.InputSchema != nil {
		if b, err := json.Marshal(t.InputSchema); err == nil && string(b) != "null" {
			return b
		}
	}
	return json.RawMessage(`{"type":"object"}`)
}
