package coordinator

import (
	"context"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// A running call answers its handler's requests that need its session and
// entry as tool.Host: the methods of the call's one allocation, where a
// closure per request was five allocations per call
// (BenchmarkCallRuntime).

// Output puts a chunk of the call's partial output in the session's
// events.
func (ec *execCall) Output(stream, chunk string) {
	s := ec.cs.s
	s.Events.Append(api.Event{Type: api.EventToolOutput, MessageID: ec.messageID, ToolUseID: ec.ToolUseID, Stream: stream, Chunk: chunk})
}

// Keep keeps the call's full output in its session.
func (ec *execCall) Keep(o tool.KeptOutput) { ec.cs.s.keepOutput(ec.cs.e, o) }

// Await asks the user and waits for the answer.
func (ec *execCall) Await(ctx context.Context, req api.InputRequest) (api.AnswerRequest, error) {
	return ec.c.awaitInput(ctx, ec.cs.s, ec.cs.e, req)
}

// Confine says how a process the call starts in dir is confined; an
// approved call that asked to leave the sandbox runs unconfined.
func (ec *execCall) Confine(dir string) (*sandbox.Sandbox, sandbox.Run, error) {
	c, cs, s := ec.c, ec.cs, ec.cs.s
	ec.confined.Store(true)
	if cs.unsandboxed && cs.approved {
		return nil, c.unconfined(dir), nil
	}
	r, err := c.confine(dir, cs.ignored)
	r.ReadOnly = append(r.ReadOnly, c.links.EditDeniedPaths(c.workspace, policy.EditDenialPatterns(c.policy.Managed, s.permRules()))...)
	if err == nil {
		r.Net = c.network(s)
	}
	return c.sandbox, r, err
}

// DeniedURL refuses a web address the call reaches on its own that a deny
// rule covers.
func (ec *execCall) DeniedURL(u string) error {
	return ec.c.policy.DeniedURL(ec.cs.s.permRules(), ec.cs.tool.Name, u)
}
