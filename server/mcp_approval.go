package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// errClientCancelled is why a facade call ends when its MCP client sends
// notifications/cancelled (or its request ends).
var errClientCancelled = errors.New("the MCP client cancelled the request")

// cancelOnDone cancels the session's call id once ctx ends, whatever state
// the call is in (queued, awaiting approval, running). go-sdk ends a
// tools/call handler's context when its client sends
// notifications/cancelled for it (mcp/shared.go). The call is claimed
// inside Execute, so a cancel that comes first is retried until the call
// exists or the call is over.
func cancelOnDone(ctx context.Context, sess *coordinator.Session, id string, over <-chan struct{}) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		for !sess.Cancel(id, errClientCancelled) {
			select {
			case <-over:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
}

// elicits reports whether the client declared the elicitation capability,
// so approvals can be put to it as elicitation/create requests.
func elicits(req *mcp.CallToolRequest) bool {
	p := req.Session.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// approvalSchema is the form an approval is asked with: a decision and an
// optional note for the model. Flat primitive properties only, as
// elicitation allows (typescript-sdk src/types.ts ElicitRequestSchema;
// go-sdk mcp/protocol.go ElicitParams).
var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"decision": map[string]any{"type": "string", "title": "Decision", "enum": []string{api.DecisionApprove, api.DecisionReject}},
		"feedback": map[string]any{"type": "string", "title": "Feedback", "description": "An optional note passed on to the model."},
	},
	"required": []string{"decision"},
}

// approver is who an MCP client's elicitation answers decide as: the
// token of its request, when that token has the approve scope. A client
// holding only call is not asked; its calls' approvals wait on the event
// stream for a client that may decide them.
func (f *mcpFacade) approver(req *mcp.CallToolRequest) (string, bool) {
	if req.Extra == nil {
		return "", false
	}
	got, ok := strings.CutPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")
	p, known := f.s.principalFor(got)
	if !ok || !known || p.scopes&ScopeApprove == 0 {
		return "", false
	}
	return p.name, true
}

// elicitApproval puts one approval to the MCP client and applies its
// answer: accept with approve or reject (and feedback), decline as a
// rejection, cancel (dismissed) as a rejection too, so the call never
// hangs on a client that will not ask again. When the approval was
// decided elsewhere first (the console, POST .../decision), the late
// answer is dropped.
func (f *mcpFacade) elicitApproval(ctx context.Context, req *mcp.CallToolRequest, sess *coordinator.Session, ev api.Event, by string) {
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: approvalMessage(ev), RequestedSchema: approvalSchema})
	if err != nil {
		if ctx.Err() == nil {
			f.s.logger.Warn("mcp elicitation failed; the approval stays on the event stream", "tool_use_id", ev.ToolUseID, "err", err)
		}
		return
	}
	d := api.DecisionRequest{Decision: api.DecisionReject}
	switch res.Action {
	case "accept":
		if v, _ := res.Content["decision"].(string); v == api.DecisionApprove {
			d.Decision = api.DecisionApprove
		}
		d.Feedback, _ = res.Content["feedback"].(string)
	case "decline":
		d.Feedback = "The user declined."
	default:
		d.Feedback = "The user dismissed the approval."
	}
	_, _ = f.s.coord.Decide(sess, ev.ToolUseID, d, by)
}

// approvalMessage tells the user what the call would do and why it asks.
func approvalMessage(ev api.Event) string {
	var b strings.Builder
	name := ev.ToolUseID
	if ev.Call != nil {
		name = ev.Call.Name
	}
	fmt.Fprintf(&b, "toolgate: allow %s?", name)
	a := ev.Approval
	if a == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "\n%s", a.Reason)
	p := a.Preview
	switch {
	case p.Command != "":
		fmt.Fprintf(&b, "\n$ %s", p.Command)
	case p.Diff != "":
		fmt.Fprintf(&b, "\n%s", clip(p.Diff, 4000))
	case len(p.Input) > 0:
		var v any
		if json.Unmarshal(p.Input, &v) == nil {
			out, _ := json.MarshalIndent(v, "", "  ")
			fmt.Fprintf(&b, "\n%s", clip(string(out), 4000))
		}
	}
	if len(p.Paths) > 0 {
		fmt.Fprintf(&b, "\npaths: %s", strings.Join(p.Paths, ", "))
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "\n…"
}
