package subagents

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/toolgate/toolgate/internal/randid"
)

// tokens are bearer tokens that admit their holder to one child
// session only: a subagent calls back into toolgate with one, so its calls
// pass the same policy under the child session's rules. Only hashes are
// kept.
type tokens struct {
	mu    sync.Mutex
	bySum map[string]string // sha256(token) -> session id
}

// issue makes a token for a session; revoke ends it.
func (s *tokens) issue(sid string) (token string, revoke func()) {
	token = "tgs_" + randid.Hex(32)
	sum := tokenSum(token)
	s.mu.Lock()
	if s.bySum == nil {
		s.bySum = map[string]string{}
	}
	s.bySum[sum] = sid
	s.mu.Unlock()
	return token, func() {
		s.mu.Lock()
		delete(s.bySum, sum)
		s.mu.Unlock()
	}
}

func tokenSum(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ScopedSession reports the one session a scoped token admits to. The
// server lets such a token reach only that session's message and call
// routes; it may not change the session's rules or decide approvals.
func (src *Source) ScopedSession(token string) (string, bool) {
	if src == nil || token == "" {
		return "", false
	}
	s := &src.tokens
	s.mu.Lock()
	defer s.mu.Unlock()
	sid, ok := s.bySum[tokenSum(token)]
	return sid, ok
}
