package coordinator

import (
	"encoding/json"
	"errors"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/mcphub"
)

// withMCP lets the MCP servers' autoApprove lists feed the policy unless
// the options name another source.
func withMCP(o Options) Options {
	if o.MCPAutoApprove == nil && o.MCP != nil {
		o.MCPAutoApprove = o.MCP.AutoApprove
	}
	return o
}

// mcpOf is the hub as the tools' Env holds it: nil, not a nil *Hub in an
// interface, when there is none, so that the MCP tools can tell.
func mcpOf(h *mcphub.Hub) tool.MCP {
	if h == nil {
		return nil
	}
	return h
}

// MCP is the hub of MCP servers calls are forwarded to; nil without any.
func (c *Coordinator) MCP() *mcphub.Hub { return c.mcp }

// MCPServers reports each configured MCP server's state, in name order,
// as GET /v1/mcp/servers gives it.
func (c *Coordinator) MCPServers() []api.MCPServer {
	out := []api.MCPServer{}
	for _, st := range c.mcp.Servers() {
		out = append(out, api.MCPServer(st))
	}
	return out
}

// mcpTools lists the connected MCP servers' tools under their
// mcp__<server>__<tool> names, leaving out those a bare deny rule names.
// Calls to these names are normalized to use_mcp_tool.
func (c *Coordinator) mcpTools(d api.Dialect, s *Session) []api.ToolInfo {
	var out []api.ToolInfo
	for _, t := range c.mcp.Tools() {
		server, mcpTool := mcphub.ListedParts(t.Server, t.Name)
		if c.deniedSubject(s, &policy.Subject{Tool: tool.UseMCPTool, MCPServer: server, MCPTool: mcpTool}) {
			continue
		}
		out = append(out, api.ToolInfo{Name: t.Listed, Description: t.Description, InputSchema: mcphub.Schema(t.Tool)})
		if d := orDefaultDialect(d); !c.metrics.known(d, t.Listed) {
			c.metrics.addTools(d, t.Listed) // listed tools' series start at zero
		}
	}
	return out
}

// mcpCallNames reads the server and tool a use_mcp_tool input names, as
// rules and hook matchers spell them; empty where the input lacks one.
func mcpCallNames(input json.RawMessage) (server, tool string) {
	var m struct {
		Server string `json:"server_name"`
		Tool   string `json:"tool_name"`
	}
	_ = json.Unmarshal(input, &m)
	return mcpSubjectNames(m.Server, m.Tool)
}

// mcpNamer is a decoded use_mcp_tool input: it names its server and tool
// without the input being read again.
type mcpNamer interface{ MCPNames() (server, tool string) }

// mcpInputNames is mcpCallNames(raw), taken from in, the decoded raw,
// when it can name them: the policy, the hooks and the metrics each ask
// for a call's names, and reading the JSON again cost each 2 µs
// (BenchmarkMCPThroughToolgate, server; docs/benchmarks.md).
func mcpInputNames(in any, raw json.RawMessage) (server, tool string) {
	if n, ok := in.(mcpNamer); ok {
		return mcpSubjectNames(n.MCPNames())
	}
	return mcpCallNames(raw)
}

// mcpSubjectNames gives the server and tool of a use_mcp_tool call as
// rules name them: the cleaned parts of the listed name, whichever
// spelling the call used.
func mcpSubjectNames(server, tool string) (string, string) {
	if server == "" || tool == "" {
		return server, tool
	}
	return mcphub.ListedParts(server, tool)
}

// deniedSubject reports whether a bare deny rule, managed or the
// session's, names the subject's tool.
func (c *Coordinator) deniedSubject(s *Session, sub *policy.Subject) bool {
	var session []*policy.Rule
	if s != nil {
		session = s.permRules()
	}
	return c.policy.DeniedOutright(session, sub)
}

// accessMCPResource reads a resource of an MCP server; like use_mcp_tool,
// it names the server in server_name.
const accessMCPResource = "access_mcp_resource"

// mcpUnreachable fails, at the prepare step, a call to an MCP server that
// is not configured or is disabled, or to a tool a connected server does
// not list: such a call can never succeed, so it must not wait for an
// approval first.
//
// in is raw decoded: a use_mcp_tool input names its server and tool
// without raw being read again.
func (c *Coordinator) mcpUnreachable(t *tool.Tool, in any, raw json.RawMessage) *outcome {
	if t.Name != tool.UseMCPTool && t.Name != accessMCPResource {
		return nil
	}
	var server, mcpTool string
	if n, ok := in.(mcpNamer); ok && t.Name == tool.UseMCPTool {
		server, mcpTool = n.MCPNames()
	} else {
		var m struct {
			Server string `json:"server_name"`
			Tool   string `json:"tool_name"`
		}
		_ = json.Unmarshal(raw, &m)
		server, mcpTool = m.Server, m.Tool
	}
	if t.Name == accessMCPResource {
		mcpTool = ""
	}
	err := c.mcp.Check(server, mcpTool)
	if err == nil {
		return nil
	}
	out := failure(api.StatusUnknownTool, api.ToolCodeUnknownTool, err.Error())
	if errors.Is(err, mcphub.ErrDisabled) {
		out = failure(api.StatusFailed, api.ToolCodeMCPUnavailable, err.Error())
	}
	return &out
}

// metricLabel is the tool label a call is counted under. An MCP tool call
// is counted as mcp__<server>__<tool> when a configured server lists that
// tool, so the label set stays bounded by the configuration and the
// servers' lists; a call naming anything else is counted as "other".
func (c *Coordinator) metricLabel(cs *callState, label string) string {
	if label != tool.UseMCPTool {
		return label
	}
	listed, ok := c.mcp.Listed(mcpInputNames(cs.input, cs.raw))
	if !ok {
		return otherTool
	}
	if d := metricDialect(cs.s); !c.metrics.known(d, listed) {
		c.metrics.addTools(d, listed)
	}
	return listed
}
