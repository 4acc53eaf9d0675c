package server

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// progressBatch is how many events one read of the session's log takes.
const progressBatch = 256

// follower says what a facade call's events are followed for.
type follower struct {
	progress bool // tool.output -> notifications/progress
	elicit   bool // tool.awaiting_approval -> elicitation/create
	// approver is the token the client's elicitation answers decide as.
	approver string
}

// follow reads a facade call's events (the call's id is also its
// message's) from after (the last id before the call was queued) and
// passes them on to the MCP request: tool.output as progress
// notifications on the request that asked for them with a progressToken,
// tool.awaiting_approval as an elicitation the client answers. Once stop
// is closed it sends what is left and returns, after any elicitation
// still open has been withdrawn: every chunk of the call is out before the
// result.
func (f *mcpFacade) follow(ctx context.Context, req *mcp.CallToolRequest, sess *coordinator.Session, id string, after int64, stop <-chan struct{}, fl follower) {
	token := req.Params.GetProgressToken()
	ectx, withdraw := context.WithCancel(ctx)
	var asking sync.WaitGroup
	defer func() {
		withdraw()
		asking.Wait()
	}()
	stopping := false
	var sent float64
	for {
		b := sess.Events.ReadMessage(id, after, progressBatch)
		after = max(after, b.Next)
		for _, ev := range b.Events {
			switch {
			case ev.ToolUseID != id:
			case ev.Type == api.EventToolOutput && fl.progress && ev.Chunk != "":
				sent++
				// A client that went away ends the call through ctx; a
				// failed notification is not worth more than that.
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: sent, Message: ev.Chunk})
			case ev.Type == api.EventToolAwaitingApproval && fl.elicit && !stopping:
				// Asked on its own goroutine: output keeps flowing, and
				// the answer may take the user a while.
				asking.Add(1)
				go func() {
					defer asking.Done()
					f.elicitApproval(ectx, req, sess, ev, fl.approver)
				}()
			}
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
