package tool

import (
	"context"

	"github.com/go-playground/validator/v10"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// Env is what every tool factory receives: the shared pieces a handler
// may keep.
type Env struct {
	Workspace *Workspace
	Validate  *validator.Validate
	// Commands configures the tools that run commands.
	Commands *CommandConfig
	// Registerer takes a tool's own metrics; it is never nil.
	Registerer prometheus.Registerer
	// MCP is the hub of MCP servers; nil means none are configured.
	MCP MCP
	// Web configures the tools that reach the network; nil means the
	// defaults.
	Web *Web
	// OmitFinalFileContent leaves the file's body out of the edit tools'
	// <final_file_content> (config omit_final_file_content).
	OmitFinalFileContent bool
}

// MCP is what the MCP tools need of the hub of MCP servers
// (internal/mcphub.Hub implements it): a tool's call, a resource's
// read, and whether a tool declares itself read-only. The contract names
// no concrete hub, so a handler test may stand one in.
type MCP interface {
	// CallTool calls a server's tool; progress receives its progress
	// notifications.
	CallTool(ctx context.Context, server, tool string, args map[string]any, progress func(string)) (*mcp.CallToolResult, error)
	// ReadResource reads a server's resource.
	ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error)
	// ReadOnly reports whether a server's tool declares readOnlyHint.
	ReadOnly(server, tool string) bool
}

// Factory builds the tool for one name. It returns nil when the coordinator
// does not own that name (a client-side tool such as focus_chain): such a
// name is known, and calls to it get a tool_result saying so.
type Factory func(name string, env Env) *Tool

// Registration pairs a tool name with its factory; the default tool set is
// a list of them. Several names may share one factory.
type Registration struct {
	Name    string
	Factory Factory
	// Internal marks a tool that only dialects reach (Claude Code's Edit
	// runs edit_text): it is in no tool list and no model may call it by
	// its own name.
	Internal bool
}
