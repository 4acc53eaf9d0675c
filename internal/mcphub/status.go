package mcphub

// The states of a server's connection.
const (
	Connecting   = "connecting"
	Connected    = "connected"
	Disconnected = "disconnected"
	Disabled     = "disabled"
)

// Status is a server's state as the hub reports it. Its fields are
// api.MCPServer's, one for one, so the coordinator converts it for the
// wire (api.MCPServer(st)) while the hub imports no layer.
type Status struct {
	Name string
	// UID is the server's short stable key for Cline's MCP tool names,
	// "<uid>0mcp0<tool>" (the name works as the key too).
	UID       string
	Transport string
	// State is Connecting, Connected, Disconnected or Disabled.
	State string
	Tools int
	// LastError is the most recent connection or call failure, if any.
	LastError string
	// Reconnects counts the connections made after the first.
	Reconnects int
	// ExitCode and StderrTail tell how a stdio server's process last
	// ended (-1: by a signal) and the last of what it wrote to stderr.
	ExitCode   *int
	StderrTail string
}
