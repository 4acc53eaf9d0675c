package mcphub

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inherited are the only variables a stdio server gets from toolgate's own
// environment (the MCP SDKs' default set): the server token and any
// credential stay out unless the entry's env passes them on purpose.
var inherited = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"}

// transport builds the client transport the entry names.
func (s *server) transport() (mcp.Transport, error) {
	switch s.cfg.transport() {
	case TransportStdio:
		cmd := s.command()
		s.mu.Lock()
		s.proc = cmd
		s.mu.Unlock()
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
	case TransportStreamableHTTP:
		return &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(), MaxRetries: 2}, nil
	case TransportSSE:
		return &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient()}, nil
	}
	return nil, fmt.Errorf("unknown transport %q", s.cfg.transport())
}

// command is the stdio server's process, in its own process group so that
// stopping it also stops what it started.
func (s *server) command() *exec.Cmd {
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.cfg.Cwd
	for _, k := range inherited {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range s.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = &logWriter{logger: s.logger}
	return cmd
}

// httpClient adds the entry's headers to every request.
func (s *server) httpClient() *http.Client {
	if len(s.cfg.Headers) == 0 {
		return http.DefaultClient
	}
	return &http.Client{Transport: headerTransport{headers: s.cfg.Headers, next: http.DefaultTransport}}
}

type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}
