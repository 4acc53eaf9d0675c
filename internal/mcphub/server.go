package mcphub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// server is one configured server and its current connection.
type server struct {
	name   string
	cfg    ServerConfig
	hub    *Hub
	logger *slog.Logger

	mu       sync.Mutex
	state    string
	session  *mcp.ClientSession
	tools    []*mcp.Tool
	byAlias  map[string]*mcp.Tool // exact and listed tool names
	lastErr  string
	connects int
	// proc is the stdio server's current process; exit is how the last
	// one ended (its exit code and the tail of its stderr).
	proc       *exec.Cmd
	exit       *processExit
	prepared   *sandbox.Prepared // the sandboxed process's run, released once it ended
	refreshing atomic.Bool

	progress sync.Map // progress token -> func(string)
	nextTok  atomic.Uint64
}

func newServer(name string, cfg ServerConfig, h *Hub) *server {
	s := &server{name: name, cfg: cfg, hub: h, logger: h.logger.With("mcp_server", name), state: Connecting}
	if cfg.Disabled {
		s.state = Disabled
	}
	return s
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := max(s.connects-1, 0)
	st := Status{Name: s.name, UID: UID(s.name), Transport: s.cfg.transport(), State: s.state, Tools: len(s.tools), LastError: s.lastErr, Reconnects: rec}
	if s.exit != nil {
		code := s.exit.code
		st.ExitCode, st.StderrTail = &code, s.exit.stderr
	}
	return st
}

// connectCount is how many times the server has connected.
func (s *server) connectCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connects
}

func (s *server) setError(err error) {
	s.mu.Lock()
	s.lastErr = err.Error()
	s.mu.Unlock()
}

// loop connects, waits for the connection to end and reconnects with
// exponential backoff until ctx ends. A connection that stayed up for a
// while resets the backoff, so a server that crashes once comes back fast
// while one that crashes at start-up is not restarted in a tight loop.
//
// A server that stays unreachable is logged once as a warning and then,
// while it keeps failing the same way, at debug level only: an operator
// learns of it without a warning every backoff period forever (the
// server's state and last error stay in GET /v1/mcp/servers).
func (s *server) loop(ctx context.Context) {
	wait := s.hub.opts.MinBackoff
	var warned string // the error last logged as a warning, until a connection holds
	for ctx.Err() == nil {
		began := time.Now()
		before := s.connectCount()
		err := s.connectAndServe(ctx)
		if ctx.Err() != nil {
			break
		}
		if s.connectCount() != before {
			warned = "" // it connected: a new failure is news again
		}
		switch {
		case err == nil:
		case err.Error() == warned:
			s.logger.Debug("mcp server still unreachable", "err", err)
		default:
			s.logger.Warn("mcp server disconnected", "err", err)
			warned = err.Error()
		}
		if time.Since(began) > 10*wait {
			wait = s.hub.opts.MinBackoff
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		wait = min(2*wait, s.hub.opts.MaxBackoff)
	}
	s.mu.Lock()
	s.state, s.session, s.tools, s.byAlias = Disconnected, nil, nil, nil
	s.mu.Unlock()
}

// connectAndServe runs one connection from handshake to its end.
func (s *server) connectAndServe(ctx context.Context) error {
	s.mu.Lock()
	s.state = Connecting
	s.mu.Unlock()
	sess, release, err := s.connect(ctx)
	if err != nil {
		s.disconnected(s.exited(err))
		return err
	}
	defer release()
	if err := s.refreshTools(ctx, sess); err != nil {
		_ = sess.Close()
		s.disconnected(s.exited(err))
		return err
	}
	s.mu.Lock()
	s.state, s.session = Connected, sess
	s.connects++
	s.mu.Unlock()
	s.logger.Info("mcp server connected")
	stop := context.AfterFunc(ctx, func() { _ = sess.Close() })
	defer stop()
	err = sess.Wait()
	if err == nil {
		err = errors.New("connection closed")
	}
	_ = sess.Close() // for a stdio server, waits for its process
	err = s.exited(err)
	s.disconnected(err)
	return err
}

func (s *server) disconnected(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.session, s.tools, s.byAlias = Disconnected, nil, nil, nil
	if err != nil {
		s.lastErr = err.Error()
	}
}

// connect opens a session over the configured transport. The handshake is
// bounded by the server's timeout, yet the context Connect gets must live
// as long as the session: the SSE transport ties its long-lived event
// stream to it, and a timeout context cancelled on return ended that
// stream at once (the next request saw EOF). So the timeout cancels the
// context only while the handshake runs, and release ends it with the
// session.
func (s *server) connect(ctx context.Context) (sess *mcp.ClientSession, release func(), err error) {
	t, err := s.transport()
	if err != nil {
		return nil, nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgate", Version: s.hub.opts.Version}, &mcp.ClientOptions{
		Capabilities:                &mcp.ClientCapabilities{},
		ToolListChangedHandler:      s.onToolListChanged,
		ProgressNotificationHandler: s.onProgress,
	})
	connCtx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(s.cfg.timeout(), func() { cancel(errTimeout) })
	sess, err = client.Connect(connCtx, t, nil)
	if !timer.Stop() && err == nil {
		// The timeout fired as the handshake finished: the session's
		// context is gone, so it cannot be used.
		_ = sess.Close()
		err = context.Cause(connCtx)
	}
	if err != nil {
		cancel(nil)
		if errors.Is(context.Cause(connCtx), errTimeout) {
			err = fmt.Errorf("no answer within %s", s.cfg.timeout())
		}
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	return sess, func() { cancel(nil) }, nil
}

// refreshTools lists the server's tools into the table calls resolve
// against.
func (s *server) refreshTools(ctx context.Context, sess *mcp.ClientSession) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	var tools []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("list tools: %w", err)
		}
		tools = append(tools, t)
	}
	alias := make(map[string]*mcp.Tool, 2*len(tools))
	for _, t := range tools {
		alias[cleanTool(s.name, t.Name)] = t
	}
	for _, t := range tools {
		alias[t.Name] = t // an exact name wins over another tool's cleaned one
	}
	s.mu.Lock()
	s.tools, s.byAlias = tools, alias
	s.mu.Unlock()
	return nil
}

// onToolListChanged re-lists the tools. It runs the listing on its own
// goroutine: the notification handler must not block the connection's
// reader, which the listing's answer arrives on.
func (s *server) onToolListChanged(_ context.Context, req *mcp.ToolListChangedRequest) {
	if !s.refreshing.CompareAndSwap(false, true) {
		return
	}
	sess := req.Session
	go func() {
		defer s.refreshing.Store(false)
		if err := s.refreshTools(context.Background(), sess); err != nil {
			s.setError(err)
		}
	}()
}

func (s *server) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	tok, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	if f, ok := s.progress.Load(tok); ok {
		msg := req.Params.Message
		if msg == "" {
			msg = progressText(req.Params.Progress, req.Params.Total)
		}
		f.(func(string))(msg)
	}
}

func progressText(done, total float64) string {
	if total > 0 {
		return fmt.Sprintf("progress %g/%g", done, total)
	}
	return fmt.Sprintf("progress %g", done)
}

func (s *server) toolList() []*mcp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

func (s *server) findTool(name string) *mcp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byAlias[name]
}

// live returns the current session or says why there is none.
func (s *server) live() (*mcp.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == nil {
		msg := fmt.Sprintf("MCP server %q is %s", s.name, s.state)
		if s.lastErr != "" {
			msg += " (last error: " + s.lastErr + ")"
		}
		return nil, errors.New(msg)
	}
	return s.session, nil
}
