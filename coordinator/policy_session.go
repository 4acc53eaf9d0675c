package coordinator

import "sync"

// maxRejectedMessages bounds how many rejected message ids a session
// remembers; a message is only ever checked while its calls run.
const maxRejectedMessages = 256

// sessionPolicy is a session's policy state: calls awaiting a decision and
// the messages in which the user rejected a call. Its zero value is ready.
type sessionPolicy struct {
	mu       sync.Mutex
	pending  map[string]*pendingApproval // by tool_use id
	rejected map[string]bool             // by message id
	order    []string                    // rejected ids, oldest first
}

// reject marks a message: its remaining calls are skipped, as Cline does
// after the user rejects a tool. Calls outside a message ("") never cascade.
func (p *sessionPolicy) reject(msgID string) {
	if msgID == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rejected == nil {
		p.rejected = map[string]bool{}
	}
	if p.rejected[msgID] {
		return
	}
	p.rejected[msgID] = true
	p.order = append(p.order, msgID)
	if len(p.order) > maxRejectedMessages {
		delete(p.rejected, p.order[0])
		p.order = p.order[1:]
	}
}

// wasRejected reports whether the user rejected a call of the message.
func (p *sessionPolicy) wasRejected(msgID string) bool {
	if msgID == "" {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rejected[msgID]
}

// skippedMessage is the tool_result text of a call skipped by the cascade.
const skippedMessage = "Skipping tool due to user rejecting a previous tool."
