package coordinator

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/subagents"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
	"github.com/toolgate/toolgate/internal/mcphub"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/store"
	"go.opentelemetry.io/otel/trace"
)

// Options are a Coordinator's dependencies.
type Options struct {
	Config    Config
	Workspace *tool.Workspace
	// Tools is the static tool set, usually handlers.Default().
	Tools []tool.Registration
	// Dialects map clients' tool vocabularies onto Tools, usually
	// dialect.All(). Cline's vocabulary is Tools itself; a session whose
	// dialect is not listed speaks it.
	Dialects []tool.Dialect
	// Dynamic sources create tools lazily by name.
	Dynamic []DynamicSource
	// Logger writes the coordinator's lines. Whether it writes debug
	// lines (the per-call "tool call" line) is asked once, in New: a
	// level changed later does not turn that line on or off.
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
	// Tracing makes a span per call and per stage (metrics_tracing.go); nil means
	// tracing is off.
	Tracing trace.TracerProvider

	// ignoreWatchers replaces the ways the ignore files are kept current
	// (policy_start.go), so tests can make them fail.
	ignoreWatchers []func(*os.Root, ...string) (*ignore.Watcher, error)
}

// Coordinator runs tool calls for sessions.
type Coordinator struct {
	cfg       *Config
	workspace *tool.Workspace
	validate  *validator.Validate
	registry  *Registry

	// dialects index the dialects' tools; dialectList keeps their
	// declared order for listings.
	dialects    dialectSet
	dialectList []tool.Dialect

	sessions *Sessions
	metrics  *Metrics
	logger   *slog.Logger
	// debugLog says the logger writes debug lines, asked once, in New:
	// asking at each call, through the logger's chain of handlers (the
	// call's attributes, then the server's), was a few cold lines of
	// every call (BenchmarkDebugCheck; docs/benchmarks.md).
	debugLog bool
	policy   *policy.Policy
	ignore   *ignore.Watcher  // nil without a workspace or when no watcher started
	masks    maskCache        // the ignored paths commands' sandboxes mask
	links    policy.LinkCache // the other names of read- and edit-denied files (policy_stage.go)
	hooks    *hooks.Runner
	inputs   pendingInputs     // interactive calls awaiting an answer
	agents   *subagents.Source // nil without an agent directory
	mcp      *mcphub.Hub
	sandbox  *sandbox.Sandbox
	// hintFn is c.sandboxHint as a func value, made once rather than per
	// call (execute; BenchmarkReadPipeline in ./handlers/).
	hintFn   func(output string) string
	rec      *recorder
	undo     UndoFunc
	tracer   *callTracer   // nil when tracing is off
	stop     chan struct{} // closed by Close
	stopOnce sync.Once

	// ignoreFixed is the ignore rules when ignore is nil: none without a
	// workspace, everything excluded when the files could not be loaded.
	ignoreFixed *ignore.Matcher
	// commandNames are the names of every tool that runs a command line
	// (policy_command_tools.go), sorted.
	commandNames []string
}

// New builds the registry from the tool list and starts the "default"
// session. It panics on a programmer error in the tool list.
func New(o Options) *Coordinator {
	cfg := o.Config
	cfg.fillDefaults()
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
	c.debugLog = o.Logger.Enabled(context.Background(), slog.LevelDebug)
	c.hintFn = c.sandboxHint
	registerSandboxInfo(o.Registerer, c.sandbox.Info())
	o = withMCP(o)
	c.startPolicy(o)
	hookDir := "" // the hooks' working directory: the workspace, when there is one
	if o.Workspace != nil {
		hookDir = o.Workspace.Dir
	}
	c.hooks = hooks.New(cfg.Hooks, hooks.Options{Dir: hookDir, Env: cfg.Commands.ChildEnv,
		DefaultTimeout: hookTimeout(), Registerer: o.Registerer, Logger: o.Logger})
	c.hooks.SetConfine(func() (*sandbox.Sandbox, sandbox.Run, error) {
		r, err := c.confine("", c.ignoreMatcher())
		return c.sandbox, r, err
	})
	c.mcp.SetConfine(c.confineMCP)
	dynamic := append(append([]DynamicSource(nil), o.Dynamic...), c.startSubagents()...)
	c.registry = NewRegistry(tool.Env{Workspace: o.Workspace, Validate: v, Commands: &cfg.Commands, Registerer: o.Registerer, MCP: mcpOf(o.MCP),
		Web: cfg.webEnv(), OmitFinalFileContent: cfg.OmitFinalFileContent}, o.Tools, dynamic...)
	c.dialects, c.dialectList = newDialectSet(o.Dialects), o.Dialects
	c.commandNames = c.commandTools()
	c.policy.SetCommandTools(c.commandNames)
	c.metrics.start(c.metricTools())
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
func (c *Coordinator) Workspace() *tool.Workspace { return c.workspace }

// Tools lists the tool pool of a session (nil: the default dialect's pool).
func (c *Coordinator) Tools(s *Session) []api.ToolInfo {
	d := api.DefaultDialect
	if s != nil {
		d = s.Dialect()
	}
	return c.Pool(d, s)
}

// Pool lists the tools a model speaking dialect d may use in session s
// (nil for none), as Claude Code's assembleToolPool builds it: the
// dialect's tools, then MCP tools, then subagent tools, minus those a
// bare deny rule (managed or the session's) removes. Plan mode leaves out
// the tools that write (a command tool stays, for commands that only
// read).
func (c *Coordinator) Pool(d api.Dialect, s *Session) []api.ToolInfo {
	plan := s != nil && s.Mode() == api.ModePlan
	hidden := func(t *tool.Tool) bool {
		return t == nil || plan && t.Writes && !t.RunsCommands() || c.deniedOutright(s, t.Name)
	}
	out := []api.ToolInfo{}
	if c.speaksRegistry(d) {
		shape := func(_ string, s json.RawMessage) json.RawMessage { return s }
		if x := c.sessionDialect(d); x != nil && x.ListSchema != nil {
			shape = x.ListSchema
		}
		for _, t := range c.registry.Tools() {
			if !hidden(t) {
				out = append(out, api.ToolInfo{Name: t.Name, Description: t.Description, InputSchema: shape(t.Name, t.InputSchema)})
			}
		}
		return append(out, c.mcpTools(d, s)...)
	}
	for _, dt := range c.dialectTools(d) {
		if c.listed(dt, hidden) {
			out = append(out, api.ToolInfo{Name: dt.Name, Description: dt.Description, InputSchema: dt.InputSchema, APIType: dt.APIType, Grammar: dt.Grammar})
		}
	}
	out = append(out, c.mcpTools(d, s)...)
	for _, t := range c.registry.dynamicTools() {
		if !hidden(t) {
			out = append(out, api.ToolInfo{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
	}
	return out
}

// listed reports whether any of a dialect tool's targets is in the pool;
// a target ending in "*" stands for the dynamic tools it prefixes.
func (c *Coordinator) listed(dt *tool.DialectTool, hidden func(*tool.Tool) bool) bool {
	for _, name := range dt.Targets {
		if prefix, ok := strings.CutSuffix(name, "*"); ok {
			for _, t := range c.registry.dynamicTools() {
				if strings.HasPrefix(t.Name, prefix) && !hidden(t) {
					return true
				}
			}
			continue
		}
		if t, _ := c.registry.lookupTarget(name); !hidden(t) {
			return true
		}
	}
	return false
}

// ToolErrors lists the tool sources (agent files) that give no tool.
func (c *Coordinator) ToolErrors() []api.ToolLoadError { return c.registry.Errors() }

// ClientSide lists the tool names the client runs itself.
func (c *Coordinator) ClientSide() []string { return c.registry.ClientSide() }

// Close ends every session and cancels what they run.
func (c *Coordinator) Close() {
	c.stopOnce.Do(func() { close(c.stop) })
	c.rec.stopping.Store(true)
	c.sessions.closeAll()
	c.masks.close()
	c.links.Close()
	if c.ignore != nil {
		_ = c.ignore.Close()
	}
	if c.agents != nil {
		c.agents.Close()
	}
	c.sandbox.Close()
}
