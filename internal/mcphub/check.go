package mcphub

import (
	"errors"
	"fmt"
	"strings"
)

// Errors Check returns; the coordinator turns each into a result at once,
// before any approval is asked for.
var (
	ErrUnknownServer = errors.New("unknown MCP server")
	ErrDisabled      = errors.New("MCP server disabled")
	ErrUnknownTool   = errors.New("unknown MCP tool")
)

// Check says whether a call to a server's tool (tool "" for a resource
// read) can be made at all: a server that is not configured or is
// disabled, or a tool a connected server does not list, can never
// succeed, so such a call must fail at once rather than wait for the user
// to approve it first. A server still connecting passes: its tools are
// not known yet.
func (h *Hub) Check(server, tool string) error {
	s, err := h.server(server)
	if err != nil {
		if h == nil || len(h.names) == 0 {
			return checkError{ErrUnknownServer, "No MCP servers are configured on this toolgate."}
		}
		return checkError{ErrUnknownServer, fmt.Sprintf("No MCP server named %q is configured (configured: %s).", server, strings.Join(h.names, ", "))}
	}
	if s.cfg.Disabled {
		return checkError{ErrDisabled, fmt.Sprintf("MCP server %q is disabled in the MCP settings.", s.name)}
	}
	if tool == "" || s.findTool(tool) != nil {
		return nil
	}
	s.mu.Lock()
	connected, listed := s.state == Connected, make([]string, 0, len(s.tools))
	for _, t := range s.tools {
		listed = append(listed, t.Name)
	}
	s.mu.Unlock()
	if !connected {
		return nil
	}
	return checkError{ErrUnknownTool, fmt.Sprintf("MCP server %q has no tool %q (it lists: %s).", s.name, tool, strings.Join(listed, ", "))}
}

// checkError is a message for the model that wraps one of the errors
// above.
type checkError struct {
	kind error
	msg  string
}

func (e checkError) Error() string { return e.msg }
func (e checkError) Unwrap() error { return e.kind }
