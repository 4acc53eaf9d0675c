package coordinator

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/internal/randid"
)

// Network access by approval (docs/network.md). A command in a session's
// network reaches outside hosts only through the session's proxy; a host
// that sandbox.network_allow does not list is judged by the permission
// rules of tool "network" in Claude Code's domain syntax, as web_fetch's
// are: network(domain:example.com), network(domain:*.example.com). A deny
// rule refuses, an allow rule lets through, and otherwise the user is
// asked with a network.awaiting_approval event, decided on the calls'
// decision route. "remember" adds the allow rule to the session.

// networkTool is the tool name of network rules.
const networkTool = "network"

// askNetwork decides whether a command of s may reach host:port through
// the session's proxy: nil lets the request through; the error's text is
// what the command sees in the proxy's refusal.
func (c *Coordinator) askNetwork(s *Session, host string, port int) error {
	sub := &policy.Subject{Tool: networkTool, URL: "http://" + host, Host: host}
	rule := networkTool + "(domain:" + host + ")"
	deny, allowed := c.policy.JudgeHost(s.permRules(), sub)
	if deny != nil {
		return fmt.Errorf("network access to %s is denied by %s", host, deny)
	}
	if allowed {
		return nil
	}
	approved, by, err := c.sharedNetworkDecision(s, host, port, rule)
	if err != nil {
		return err
	}
	if !approved {
		return fmt.Errorf("the user refused network access to %s:%d (%s). An allow rule %s, "+
			"or the host in sandbox.network_allow, lets it through", host, port, by, rule)
	}
	return nil
}

// networkGrant is how long an approval without remember lets its host and
// port through: a package manager's install makes many requests to one
// host, which should not each ask again.
const networkGrant = 10 * time.Minute

// netAsk is a network approval being asked, which requests for the same
// host and port made meanwhile wait for instead of asking again (a package
// manager opens several connections to one host at once).
type netAsk struct {
	done     chan struct{}
	approved bool
	how      string
	err      error
}

// sharedNetworkDecision asks about host:port once for every request made
// while the question is open, and for none made within networkGrant of an
// approval.
func (c *Coordinator) sharedNetworkDecision(s *Session, host string, port int, rule string) (bool, string, error) {
	key := host + ":" + strconv.Itoa(port)
	sn := &s.net
	sn.askMu.Lock()
	if until, ok := sn.granted[key]; ok && time.Now().Before(until) {
		sn.askMu.Unlock()
		return true, "", nil
	}
	if a, ok := sn.asks[key]; ok {
		sn.askMu.Unlock()
		<-a.done
		return a.approved, a.how, a.err
	}
	a := &netAsk{done: make(chan struct{})}
	if sn.asks == nil {
		sn.asks = map[string]*netAsk{}
	}
	sn.asks[key] = a
	sn.askMu.Unlock()
	a.approved, a.how, a.err = c.awaitNetworkDecision(s, host, port, rule)
	sn.askMu.Lock()
	delete(sn.asks, key)
	if a.approved {
		if sn.granted == nil {
			sn.granted = map[string]time.Time{}
		}
		sn.granted[key] = time.Now().Add(networkGrant)
	}
	sn.askMu.Unlock()
	close(a.done)
	return a.approved, a.how, a.err
}

// awaitNetworkDecision announces a network approval and waits for the
// decision, the approval timeout or the session's end. It reports whether
// the request was approved, and otherwise how it was refused.
func (c *Coordinator) awaitNetworkDecision(s *Session, host string, port int, rule string) (bool, string, error) {
	defer c.metrics.observeApprovalWait(time.Now())
	timeout := c.cfg.approvalTimeout()
	id := "net_" + randid.Hex(12)
	pa := &pendingApproval{decided: make(chan answer, 1), remember: []string{rule}}
	p := &s.policy
	p.mu.Lock()
	if p.pending == nil {
		p.pending = map[string]*pendingApproval{}
	}
	p.pending[id] = pa
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
	}()
	reason := fmt.Sprintf("approval required: a command asks to reach %s:%d, which no rule allows (network off; a rule %s would)", host, port, rule)
	approval := &api.Approval{Reason: reason, Deadline: time.Now().Add(timeout).UTC(),
		Preview: api.Preview{Network: &api.NetworkPreview{Host: host, Port: port, Rule: rule}}}
	s.Events.Append(api.Event{Type: api.EventNetworkAwaitingApproval, ToolUseID: id, Approval: approval})
	c.logger.Info("network access awaits approval", "session", s.ID, "id", id, "host", host, "port", port,
		"approve", fmt.Sprintf(`POST /v1/sessions/%s/calls/%s/decision {"decision":"approve"}`, url.PathEscape(s.ID), id))
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case d := <-pa.decided:
		c.logger.Info("network access decided", "session", s.ID, "id", id, "host", host, "port", strconv.Itoa(port),
			"decision", d.Decision, "by", d.by)
		if d.Decision == api.DecisionApprove {
			return true, "", nil
		}
		return false, "rejected", nil
	case <-timer.C:
		return false, "no decision came within " + timeout.String(), nil
	case <-s.Done():
		return false, "", fmt.Errorf("the session ended")
	}
}
