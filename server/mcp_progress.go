package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// progressBatch is how many events one read of the session's log takes.
const progressBatch = 256

// forwardProgress turns a facade call's tool.output events (the call's id
// is also its message's) into MCP
// progress notifications on the request that asked for them with a
// progressToken. It follows the session's event log from after (the last
// id before the call was queued) and, once stop is closed, sends what is
// left and returns: every chunk of the call is out before the result.
func forwardProgress(ctx context.Context, req *mcp.CallToolRequest, sess *coordinator.Session, id string, after int64, stop <-chan struct{}) {
	token := req.Params.GetProgressToken()
	stopping := false
	var sent float64
	for {
		b := sess.Events.ReadMessage(id, after, progressBatch)
		after = max(after, b.Next)
		for _, ev := range b.Events {
			if ev.ToolUseID != id || ev.Type != api.EventToolOutput || ev.Chunk == "" {
				continue
			}
			sent++
			// A client that went away ends the call through ctx; a failed
			// notification is not worth more than that.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: sent, Message: ev.Chunk})
		}
		switch {
		case len(b.Events) > 0:
			continue
		case b.Closed || stopping:
			return
		}
		select {
		case <-b.Wake:
		case <-stop:
			stopping = true
		case <-ctx.Done():
			return
		}
	}
}
