package coordinator

// MCPConfig names the MCP servers toolgate connects to.
type MCPConfig struct {
	// MCPSettings is the path of an MCP settings file in Cline's format
	// ({"mcpServers": {...}}); empty means no MCP servers.
	MCPSettings string `json:"mcp_settings"`
}
