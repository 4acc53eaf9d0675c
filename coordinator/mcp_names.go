package coordinator

import (
	"strings"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// ParseMCPName splits "mcp__<server>__<tool>" into its server and tool.
// Server names never contain "__" (names are cleaned to [a-zA-Z0-9_-] and
// runs of underscores are collapsed when tools are listed), so the first
// "__" after the prefix separates them; the tool part may contain "__".
// Both parts must be non-empty.
func ParseMCPName(name string) (server, mcpTool string, ok bool) {
	rest, found := strings.CutPrefix(name, tool.MCPPrefix)
	if !found {
		return "", "", false
	}
	server, mcpTool, found = strings.Cut(rest, "__")
	if !found || server == "" || strings.Trim(mcpTool, "_") == "" {
		return "", "", false
	}
	return server, mcpTool, true
}

// parseMarkedMCPName splits a dialect's own MCP tool name,
// "<key><mark><tool>" (tool.Dialect.MCPNameMark), at the first mark; both
// parts must be non-empty, and no mark means no such name. (A client that
// splits at every mark and keeps the first two parts cuts a tool name
// holding the mark; here the tool keeps it.)
func parseMarkedMCPName(name, mark string) (key, tool string, ok bool) {
	if mark == "" {
		return "", "", false
	}
	key, tool, ok = strings.Cut(name, mark)
	if !ok || key == "" || tool == "" {
		return "", "", false
	}
	return key, tool, true
}
