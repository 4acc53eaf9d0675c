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
	Name string `json:"name"`
	// UID is the server's short stable key for Cline's MCP tool names,
	// "<uid>0mcp0<tool>" (the name works as the key too).
	UID       string `json:"uid"`
	Transport string `json:"transport"`
	// State is connecting, connected, disconnected or disabled.
	State string `json:"state"`
	Tools int    `json:"tools"`
	// LastError is the most recent connection or call failure, if any.
	LastError string `json:"last_error,omitempty"`
	// Reconnects counts the connections made after the first.
	Reconnects int `json:"reconnects"`
	// ExitCode and StderrTail tell how a stdio server's process last
	// ended (-1: by a signal) and the last of what it wrote to stderr,
	// which usually says why it failed to start or died.
	ExitCode   *int   `json:"exit_code,omitempty"`
	StderrTail string `json:"stderr_tail,omitempty"`
}

// MCPServersResponse is GET /v1/mcp/servers.
type MCPServersResponse struct {
	Servers []MCPServer `json:"servers"`
}
