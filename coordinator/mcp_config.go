package coordinator

// MCPConfig names the MCP servers toolgate connects to.
type MCPConfig struct {
	// MCPSettings is the path of an MCP settings file in Cline's format
	// ({"mcpServers": {...}}); empty means no MCP servers. In a config
	// file, a relative path is taken from the file's directory.
	MCPSettings string `json:"mcp_settings"`
}
