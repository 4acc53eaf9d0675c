package mcphub

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errTimeout is the cause of a call the server's timeout cancelled.
var errTimeout = errors.New("timed out")

// withTimeout bounds a call by the server's timeout, recording why it was
// cut so the error says so rather than "context canceled".
func (s *server) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, s.cfg.timeout(), errTimeout)
}

// explain turns a failed call's error into a message for the model.
func (s *server) explain(ctx context.Context, what string, err error) error {
	if errors.Is(context.Cause(ctx), errTimeout) {
		return fmt.Errorf("MCP server %q did not answer %s within its timeout of %s; the request was cancelled", s.name, what, s.cfg.timeout())
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s on MCP server %q was cancelled: %w", what, s.name, context.Cause(ctx))
	}
	s.setError(err)
	return fmt.Errorf("MCP server %q: %s: %w", s.name, what, err)
}

func (s *server) callTool(ctx context.Context, tool string, args map[string]any, progress func(string)) (*mcp.CallToolResult, error) {
	sess, err := s.live()
	if err != nil {
		return nil, err
	}
	t := s.findTool(tool)
	if t == nil {
		return nil, fmt.Errorf("MCP server %q has no tool %q", s.name, tool)
	}
	if args == nil {
		args = map[string]any{}
	}
	params := &mcp.CallToolParams{Name: t.Name, Arguments: args}
	if progress != nil {
		tok := "tg-" + strconv.FormatUint(s.nextTok.Add(1), 10)
		s.progress.Store(tok, progress)
		defer s.progress.Delete(tok)
		params.SetProgressToken(tok)
	}
	ctx, span := s.traceCall(ctx, t.Name, params)
	defer span.End()
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	res, err := sess.CallTool(ctx, params)
	if err != nil {
		return nil, s.explain(ctx, "tool "+t.Name, err)
	}
	return res, nil
}

func (s *server) readResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	sess, err := s.live()
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, s.explain(ctx, "resource "+uri, err)
	}
	return res, nil
}
