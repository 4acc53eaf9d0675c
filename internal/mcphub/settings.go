package mcphub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Settings is an MCP settings file in Cline's format:
// {"mcpServers": {"name": {...}}}.
type Settings struct {
	MCPServers map[string]ServerConfig `json:"mcpServers"`
}

// Transport kinds a server entry may name.
const (
	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamableHttp"
	TransportSSE            = "sse"
)

// defaultTimeout is Cline's default per-call timeout.
const defaultTimeout = 60 * time.Second

// ServerConfig is one server entry: a command to start over stdio, or a
// URL to reach over streamable HTTP or SSE.
type ServerConfig struct {
	// Type is stdio, streamableHttp or sse; empty means stdio when Command
	// is set, else streamableHttp.
	Type string `json:"type,omitempty"`
	// TransportType is the older spelling of Type that Cline also reads.
	TransportType string            `json:"transportType,omitempty"`
	Command       string            `json:"command,omitempty"`
	Args          []string          `json:"args,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	Cwd           string            `json:"cwd,omitempty"`
	URL           string            `json:"url,omitempty"`
	Headers       map[string]string `json:"headers,omitempty"`
	Disabled      bool              `json:"disabled,omitempty"`
	// AutoApprove lists the tools that run without asking.
	AutoApprove []string `json:"autoApprove,omitempty"`
	// Timeout bounds one call, in seconds; 0 means 60.
	Timeout int `json:"timeout,omitempty"`
	// Sandbox runs a stdio server inside toolgate's command sandbox (see
	// policy.sandbox): read-only root, only the workspace writable,
	// credentials and ignored files hidden, the network as configured.
	Sandbox bool `json:"sandbox,omitempty"`
}

// transport resolves the entry's transport kind.
func (c ServerConfig) transport() string {
	switch {
	case c.Type != "":
		return c.Type
	case c.TransportType != "":
		return c.TransportType
	case c.Command != "":
		return TransportStdio
	}
	return TransportStreamableHTTP
}

// timeout is the per-call limit.
func (c ServerConfig) timeout() time.Duration {
	if c.Timeout <= 0 {
		return defaultTimeout
	}
	return time.Duration(c.Timeout) * time.Second
}

// check refuses entries that cannot be connected at all.
func (c ServerConfig) check(name string) error {
	switch c.transport() {
	case TransportStdio:
		if c.Command == "" {
			return fmt.Errorf("mcp server %q: stdio needs a command", name)
		}
	case TransportStreamableHTTP, TransportSSE:
		if c.URL == "" {
			return fmt.Errorf("mcp server %q: %s needs a url", name, c.transport())
		}
		if c.Sandbox {
			return fmt.Errorf("mcp server %q: \"sandbox\" applies to stdio servers only (toolgate does not start a %s server)", name, c.transport())
		}
	default:
		return fmt.Errorf("mcp server %q: unknown type %q", name, c.transport())
	}
	return nil
}

// LoadSettings reads and checks a settings file.
func LoadSettings(path string) (Settings, error) {
	var s Settings
	data, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("read mcp settings: %w", err)
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return s, fmt.Errorf("mcp settings %s: %w", path, err)
	}
	for name, c := range s.MCPServers {
		if err := c.check(name); err != nil {
			return s, err
		}
	}
	return s, nil
}
