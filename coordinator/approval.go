package coordinator

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// pendingApproval is a call waiting for the client's decision.
type pendingApproval struct {
	decided  chan answer // buffered: Decide never blocks
	remember []string    // the allow rules "remember" adds
	// shown is the call as the approvals inbox lists it, nil until the
	// call is announced (approval_inbox.go).
	shown *api.PendingApproval
}

// Errors of Decide, as request-level errors.
var (
	errNoSuchCall     = &api.Error{Code: api.CodeNotFound, Message: "no such call in this session"}
	errNotAwaiting    = &api.Error{Code: api.CodeConflict, Message: "the call is not awaiting approval"}
	errDecisionValues = &api.Error{Code: api.CodeValidation, Message: "invalid decision",
		Fields: map[string]string{"decision": "must be approve or reject"}}
)

// answer is a client's decision and who gave it (the label of the token
// that answered), for the audit log.
type answer struct {
	api.DecisionRequest
	by string
}

// Decide delivers the client's decision on a call awaiting approval. With
// remember, an approval also adds an allow rule for the call's exact shape
// to the session, unless the managed policy forbids session allow rules.
func (c *Coordinator) Decide(s *Session, toolUseID string, req api.DecisionRequest, by string) (api.DecisionResponse, error) {
	if req.Decision != api.DecisionApprove && req.Decision != api.DecisionReject {
		return api.DecisionResponse{}, errDecisionValues
	}
	p := &s.policy
	p.mu.Lock()
	pa, ok := p.pending[toolUseID]
	if ok {
		delete(p.pending, toolUseID)
	}
	p.mu.Unlock()
	if !ok {
		if s.HasCall(toolUseID) {
			return api.DecisionResponse{}, errNotAwaiting
		}
		return api.DecisionResponse{}, errNoSuchCall
	}
	resp := api.DecisionResponse{ToolUseID: toolUseID, Decision: req.Decision}
	if req.Decision == api.DecisionApprove && req.Remember && !c.cfg.ForbidSessionAllow && len(pa.remember) > 0 {
		s.addAllow(pa.remember)
		resp.RememberedRules = pa.remember
	}
	// by names the token that decided ("token", "token:alice"); the
	// server lets only tokens with the approve scope get here.
	pa.decided <- answer{req, by}
	return resp, nil
}

// addAllow appends allow rules to the session's own rules.
func (s *Session) addAllow(rules []string) {
	s.mu.Lock()
	for _, r := range rules {
		if !contains(s.permissions.Allow, r) {
			s.permissions.Allow = append(s.permissions.Allow, r)
			s.rulesParsed = false
		}
	}
	s.mu.Unlock()
	s.rec.session(s)
}

// permRules are the session's own rules parsed, parsed again only after
// they change. The rules are shared by the calls that ask and never
// changed once parsed.
func (s *Session) permRules() []*policy.Rule {
	_, rules := s.policyView()
	return rules
}

// policyView is the session's mode and its own rules (as permRules),
// under one locking: the policy stage asks for both on every call.
func (s *Session) policyView() (api.Mode, []*policy.Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.rulesParsed {
		s.rules, s.rulesParsed = policy.SessionRules(s.permissions), true
	}
	return s.mode, s.rules
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// approve is the pipeline stage that puts the call before the user when
// the policy, or a PreToolUse hook, asked for approval. Nobody is asked
// twice for one call (checkPolicy drops an ask once the user approved). A rejection, the deadline or the call's end
// stop the call; an approval lets it run with the user's comment.
func (c *Coordinator) approve(ctx context.Context, cs *callState) {
	if !cs.running() || cs.ask == nil {
		return
	}
	v := cs.ask
	cs.ask = nil
	ctx, span := c.tracer.stage(ctx, cs, "approval wait")
	defer span.End()
	asked := time.Now()
	out, feedback := c.askApproval(ctx, cs.s, cs.e, *v, cs.sub, cs.tool, cs.input, cs.raw)
	cs.waited += time.Since(asked)
	if out != nil {
		cs.stop(*out)
		return
	}
	cs.approved, cs.feedback = true, feedback
}

// askApproval puts the call in state awaiting_approval, announces it with
// a preview and waits for the decision, the deadline or the call's end.
// It returns nil when the call may run, and the feedback to pass on;
// otherwise the outcome that ends the call.
func (c *Coordinator) askApproval(ctx context.Context, s *Session, e *callEntry, v policy.Verdict, sub *policy.Subject, t *tool.Tool, in any, raw []byte) (*outcome, string) {
	defer c.metrics.observeApprovalWait(time.Now())
	timeout := c.cfg.approvalTimeout()
	pa := &pendingApproval{decided: make(chan answer, 1), remember: rememberRules(sub, t)}
	p := &s.policy
	p.mu.Lock()
	if p.pending == nil {
		p.pending = map[string]*pendingApproval{}
	}
	p.pending[e.record.ToolUseID] = pa
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		if p.pending[e.record.ToolUseID] == pa {
			delete(p.pending, e.record.ToolUseID)
		}
		p.mu.Unlock()
	}()

	approval := &api.Approval{Reason: v.Reason, Deadline: time.Now().Add(timeout).UTC(), Preview: c.preview(ctx, s, sub, t, in, raw)}
	if v.Unsandboxed {
		// No rule may approve leaving the sandbox: nothing to remember.
		approval.Preview.Sandbox, pa.remember = unsandboxedPreview(sub.Background), nil
	}
	if v.Rule != nil {
		approval.Rule = v.Rule.Text
	}
	rec := s.setState(e, api.StateAwaitingApproval, nil)
	e.audit.reason = v.Reason
	s.rec.callAwaiting(s, e)
	p.show(pa, s.ID, rec, approval)
	s.Events.Append(api.Event{Type: api.EventToolAwaitingApproval, MessageID: rec.MessageID, ToolUseID: rec.ToolUseID, Call: &rec, Approval: approval})
	// The log says how to decide, so an operator who sees a client wait
	// knows what it waits for and the exact request that ends the wait.
	c.logger.Info("call awaits approval", "session", s.ID, "tool_use_id", rec.ToolUseID, "tool", rec.Name,
		"reason", v.Reason, "deadline", approval.Deadline,
		"approve", fmt.Sprintf(`POST /v1/sessions/%s/calls/%s/decision {"decision":"approve"}`, url.PathEscape(s.ID), url.PathEscape(rec.ToolUseID)))

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case d := <-pa.decided:
		if d.Decision == api.DecisionApprove {
			e.audit.decide("approved", d.by)
			return nil, d.Feedback
		}
		e.audit.decide("rejected", d.by)
		p.reject(rec.MessageID)
		out := failure(api.StatusDenied, api.ToolCodeRejected, rejectionText(d.Feedback))
		if texts := c.ownTexts(s.Dialect()); texts != nil {
			if own := texts.Rejected(t.Name, c.firstPathExists(sub), d.Feedback); own != nil {
				out.result.Content = own
			}
		}
		return &out, ""
	case <-timer.C:
		e.audit.decide(api.ToolCodeNoDecision, "timeout")
		out := failure(api.StatusDenied, api.ToolCodeNoDecision, fmt.Sprintf(
			"Denied: no decision came within %s (%s).", timeout, v.Reason))
		return &out, ""
	case <-ctx.Done():
		msg := "Cancelled while awaiting approval."
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			msg = "Cancelled while awaiting approval: " + cause.Error()
		}
		out := failure(api.StatusCancelled, api.ToolCodeCancelled, msg)
		return &out, ""
	}
}

// rejectionText is the tool_result of a call the user rejected, in Cline's
// words, with the user's feedback for the model.
func rejectionText(feedback string) string {
	if feedback == "" {
		return "The user denied this operation."
	}
	return "The user denied this operation and provided the following feedback:\n<feedback>\n" + feedback + "\n</feedback>"
}

// approvalFeedback is appended to the result of a call the user approved
// with a comment: in the session dialect's words (texts) for a call in the
// registry's vocabulary, else in toolgate's.
func approvalFeedback(feedback string, texts tool.Texts) api.Content {
	if texts == nil {
		texts = tool.PlainTexts{}
	}
	return api.TextContent(texts.ApprovalFeedback(feedback))
}

// firstPathExists reports whether the first path a call names exists in
// the workspace.
func (c *Coordinator) firstPathExists(sub *policy.Subject) bool {
	if sub == nil || len(sub.Paths) == 0 || c.workspace == nil {
		return false
	}
	_, err := c.workspace.Root.Stat(sub.Paths[0].Rel)
	return err == nil
}
