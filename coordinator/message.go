package coordinator

import (
	"context"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// RunMessage runs every tool_use of an assistant message and answers with
// the user message holding one tool_result per tool_use, in block order.
// Consecutive concurrency-safe calls run together; an unsafe call runs
// alone (see scheduler). Blocks marked partial are only previewed
// (tool.partial events), never run. The calls run under the session, not ctx: a
// client that goes away does not stop them; ctx only bounds the wait for
// calls that another request started.
func (c *Coordinator) RunMessage(ctx context.Context, s *Session, msgID string, uses []api.ToolUse) api.MessageResponse {
	uses = c.previewPartials(s, msgID, uses)
	sc := c.newScheduler(s, msgID)
	sc.parent = c.tracer.parentOf(ctx)
	sc.requestID = requestIDFrom(ctx)
	sc.afterAnswer = tool.AfterAnswerFrom(ctx)
	sc.holding = true
	for _, use := range uses {
		sc.add(use)
	}
	sc.runHeld()
	return c.finishMessage(ctx, sc)
}

// finishMessage waits for a message's calls and announces its answer.
func (c *Coordinator) finishMessage(ctx context.Context, sc *scheduler) api.MessageResponse {
	resp := sc.wait(ctx)
	sc.s.Events.Append(api.Event{Type: api.EventMessageFinished, MessageID: sc.msgID, Response: &resp})
	return resp
}
