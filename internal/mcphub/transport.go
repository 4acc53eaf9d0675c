package mcphub

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// inherited are the only variables a stdio server gets from toolgate's own
// environment (the MCP SDKs' default set): the server token and any
// credential stay out unless the entry's env passes them on purpose.
var inherited = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"}

// transport builds the client transport the entry names.
func (s *server) transport() (mcp.Transport, error) {
	switch s.cfg.transport() {
	case TransportStdio:
		cmd, err := s.command()
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.proc = cmd
		s.mu.Unlock()
		return &stdioTransport{cmd: cmd, terminate: 2 * time.Second}, nil
	case TransportStreamableHTTP:
		return &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(), MaxRetries: 2}, nil
	case TransportSSE:
		return &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient()}, nil
	}
	return nil, fmt.Errorf("unknown transport %q", s.cfg.transport())
}

// command is the stdio server's process, in its own process group so that
// stopping it also stops what it started. A server whose entry asks for
// the sandbox is wrapped by it, and is not started at all when it cannot
// be confined.
func (s *server) command() (*exec.Cmd, error) {
	argv := append([]string{s.cfg.Command}, s.cfg.Args...)
	var env []string
	for _, k := range inherited {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range s.cfg.Env {
		env = append(env, k+"="+v)
	}
	var prepared *sandbox.Prepared
	if s.cfg.Sandbox {
		confine := s.hub.confine.Load()
		if confine == nil {
			return nil, errors.New(`the entry asks for "sandbox": true, but this hub has no sandbox to run it in`)
		}
		p, err := (*confine)(argv, env, s.cfg.Cwd)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		prepared, argv, env = p, p.Argv, p.Env
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.cfg.Cwd
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = &logWriter{logger: s.logger}
	if prepared != nil {
		cmd.Dir = "" // the sandbox starts it in Cwd (or the workspace)
		cmd.ExtraFiles = prepared.ExtraFiles
		// A run that reaches a limit is killed by the sandbox itself; the
		// server then reconnects like one that crashed.
		s.mu.Lock()
		s.prepared = prepared
		s.mu.Unlock()
	}
	return cmd, nil
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
