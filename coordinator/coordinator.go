package coordinator

import (
	"log/slog"
	"sync"

	"github.com/go-playground/validator/v10"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/mcphub"
	"github.com/toolgate/toolgate/internal/ignore"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/store"
	"go.opentelemetry.io/otel/trace"
)

// Options are a Coordinator's dependencies.
type Options struct {
	Config    Config
	Workspace *Workspace
	// Tools is the static tool set, usually handlers.Default().
	Tools []Registration
	// Dynamic sources create tools lazily by name.
	Dynamic    []DynamicSource
	Logger     *slog.Logger
	Registerer prometheus.Registerer
	// MCPAutoApprove reports whether an MCP server's autoApprove list
	// names a tool; nil means none do.
	MCPAutoApprove func(server, tool string) bool
	// MCP is the hub use_mcp_tool and access_mcp_resource call; nil means no MCP servers.
	MCP *mcphub.Hub
	// Sandbox confines commands, hooks and subagent runners; nil means
	// one made from Config.Sandbox.
	Sandbox *sandbox.Sandbox
	// Store keeps sessions, calls and edits across restarts and is the
	// audit log; nil means a memory store (nothing survives the process).
	// Restore loads what it holds.
	Store store.Store
	// Undo rebuilds the undo of an edit restored from the store; nil means
	// edits made before a restart cannot be reverted.
	Undo UndoFunc
	// Tracing makes a span per call and per stage (tracing.go); nil means
	// tracing is off.
	Tracing trace.TracerProvider
}

// Coordinator runs tool calls for sessions.
type Coordinator struct {
	cfg       *Config
	workspace *Workspace
	validate  *validator.Validate
	registry  *Registry
	sessions  *Sessions
	metrics   *Metrics
	logger    *slog.Logger
	policy    *policy
	ignore    *ignore.Watcher // nil without a workspace
	hooks     *hookRunner
	inputs    pendingInputs   // interactive calls awaiting an answer
	scoped    scopedTokens    // subagents' tokens for their child sessions
	agents    *subagentSource // nil without an agent directory
	mcp       *mcphub.Hub
	sandbox   *sandbox.Sandbox
	rec       *recorder
	undo      UndoFunc
	tracer    *callTracer   // nil when tracing is off
	stop      chan struct{} // closed by Close
	stopOnce  sync.Once
}

// New builds the registry from the tool list and starts the "default"
// session. It panics on a programmer error in the tool list.
func New(o Options) *Coordinator {
	cfg := o.Config
	def := DefaultConfig()
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = def.MaxSessions
	}
	if cfg.EventLogSize <= 0 {
		cfg.EventLogSize = def.EventLogSize
	}
	if cfg.EventLogBytes <= 0 {
		cfg.EventLogBytes = def.EventLogBytes
	}
	if cfg.MaxCallsPerSession <= 0 {
		cfg.MaxCallsPerSession = def.MaxCallsPerSession
	}
	cfg.orchestrationDefaults(def)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Registerer == nil {
		o.Registerer = prometheus.NewRegistry()
	}
	v := NewValidator()
	if o.Store == nil {
		o.Store = store.NewMemory(0)
	}
	rec := &recorder{st: o.Store, logger: o.Logger}
	c := &Coordinator{
		cfg:       &cfg,
		workspace: o.Workspace,
		validate:  v,
		rec:       rec,
		undo:      o.Undo,
		sessions:  newSessions(&cfg, rec),
		metrics:   NewMetrics(o.Registerer),
		logger:    o.Logger,
		mcp:       o.MCP,
		tracer:    newCallTracer(o.Tracing),
		sandbox:   o.Sandbox,
		stop:      make(chan struct{}),
	}
	if c.sandbox == nil {
		c.sandbox = sandbox.New(cfg.Sandbox)
	}
	registerSandboxInfo(o.Registerer, c.sandbox.Info())
	o = withMCP(o)
	c.startPolicy(o)
	c.hooks = newHookRunner(&cfg, o.Workspace, o.Registerer, o.Logger)
	c.hooks.confine = func() (*sandbox.Sandbox, sandbox.Run, error) {
		r, err := c.confine("", c.ignoreMatcher())
		return c.sandbox, r, err
	}
	dynamic := append(append([]DynamicSource(nil), o.Dynamic...), c.subagentSources()...)
	c.registry = NewRegistry(ToolEnv{Workspace: o.Workspace, Validate: v, Commands: &cfg.Commands, Registerer: o.Registerer, MCP: o.MCP,
		Web: cfg.webEnv()}, o.Tools, dynamic...)
	c.metrics.start(c.registry.Names())
	o.Registerer.MustRegister(newStateCollector(c))
	go c.expireIdleSessions(c.stop)
	return c
}

// Restore brings back what the store kept from before a restart (see
// restore). Call it once, after New and before serving.
func (c *Coordinator) Restore() error { return c.restore(c.undo) }

// Sessions is the coordinator's session set.
func (c *Coordinator) Sessions() *Sessions { return c.sessions }

// Workspace is the directory calls work in.
func (c *Coordinator) Workspace() *Workspace { return c.workspace }

// Tools lists the tools a session's model may use: plan mode leaves out the
// tools that write (a command tool stays, for commands that only read),
// and a bare deny rule (managed or the session's) leaves out the tool it
// names.
func (c *Coordinator) Tools(s *Session) []api.ToolInfo {
	plan := s != nil && s.Mode() == api.ModePlan
	out := []api.ToolInfo{}
	for _, t := range c.registry.Tools() {
		if plan && t.Writes && !t.RunsCommands() || c.deniedOutright(s, t.Name) {
			continue
		}
		out = append(out, api.ToolInfo{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return append(out, c.mcpTools(s)...)
}

// ClientSide lists the tool names the client runs itself.
func (c *Coordinator) ClientSide() []string { return c.registry.ClientSide() }

// Close ends every session and cancels what they run.
func (c *Coordinator) Close() {
	c.stopOnce.Do(func() { close(c.stop) })
	c.rec.stopping.Store(true)
	c.sessions.closeAll()
	if c.ignore != nil {
		_ = c.ignore.Close()
	}
	if c.agents != nil {
		c.agents.close()
	}
}
