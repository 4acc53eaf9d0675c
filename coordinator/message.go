package coordinator

import (
	"context"

	"github.com/toolgate/toolgate/api"
)

// RunMessage runs every tool_use of an assistant message and answers with
// the user message holding one tool_result per tool_use, in block order.
// Calls run one after another. Blocks marked partial are only previewed
// (tool.partial events), never run. The calls run under the session, not ctx:
// a client that goes away does not stop them; ctx only bounds the wait for
// calls that another request started.
func (c *Coordinator) RunMessage(ctx context.Context, s *Session, msgID string, uses []api.ToolUse) api.MessageResponse {
	uses = c.previewPartials(s, msgID, uses)
	type slot struct {
		e     *callEntry
		fresh bool
	}
	slots := make([]slot, len(uses))
	for i, use := range uses {
		e, fresh := c.enqueue(s, msgID, use)
		slots[i] = slot{e, fresh}
	}
	resp := api.MessageResponse{
		MessageID: msgID,
		Message:   api.UserMessage{Role: "user", Content: make([]api.ToolResult, len(uses))},
		Calls:     make([]api.CallRecord, len(uses)),
	}
	for i, use := range uses {
		if slots[i].fresh {
			resp.Message.Content[i], resp.Calls[i] = c.run(s, slots[i].e, use)
		} else {
			resp.Message.Content[i], resp.Calls[i] = c.await(ctx, s, slots[i].e)
		}
	}
	s.Events.Append(api.Event{Type: api.EventMessageFinished, MessageID: msgID, Response: &resp})
	return resp
}
