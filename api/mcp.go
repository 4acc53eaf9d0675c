package api

// MCP server connection states.
const (
	MCPConnecting   = "connecting"
	MCPConnected    = "connected"
	MCPDisconnected = "disconnected"
	MCPDisabled     = "disabled"
)

// MCPServer is one configured MCP server as GET /v1/mcp/servers shows it.
type MCPServer struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	// State is connecting, connected, disconnected or disabled.
	State string `json:"state"`
	Tools int    `json:"tools"`
	// LastError is the most recent connection or call failure, if any.
	LastError string `json:"last_error,omitempty"`
	// Reconnects counts the connections made after the first.
	Reconnects int `json:"reconnects"`
}

// MCPServersResponse is GET /v1/mcp/servers.
type MCPServersResponse struct {
	Servers []MCPServer `json:"servers"`
}
