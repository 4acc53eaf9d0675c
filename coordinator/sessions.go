package coordinator

import (
	"crypto/rand"
	"encoding/hex"
	"sort"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
)

// Sessions is the bounded set of live sessions. "default" always exists.
type Sessions struct {
	cfg *Config

	mu   sync.Mutex
	byID map[string]*Session
}

// ErrNotFound and friends are the request-level errors sessions produce.
var (
	ErrSessionNotFound = &api.Error{Code: api.CodeNotFound, Message: "no such session"}
	ErrTooManySessions = &api.Error{Code: api.CodeTooManySessions, Message: "too many sessions; delete one first"}
	ErrDeleteDefault   = &api.Error{Code: api.CodeConflict, Message: `the "default" session cannot be deleted`}
)

func newSessions(cfg *Config) *Sessions {
	s := &Sessions{cfg: cfg, byID: map[string]*Session{}}
	s.byID[api.DefaultSessionID] = newSession(api.DefaultSessionID, api.ModeAct, api.Permissions{}, cfg)
	return s
}

// Create starts a session with a fresh random id.
func (s *Sessions) Create(mode api.Mode, perms api.Permissions) (*Session, error) {
	if mode == "" {
		mode = api.ModeAct
	}
	if s.full() {
		// Idle sessions leave before a new client is refused.
		s.ExpireIdle(time.Now())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.byID) >= s.cfg.MaxSessions {
		return nil, ErrTooManySessions
	}
	id := NewID("ses_")
	sess := newSession(id, mode, perms, s.cfg)
	s.byID[id] = sess
	return sess, nil
}

func (s *Sessions) full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID) >= s.cfg.MaxSessions
}

// Get finds a live session and counts the lookup as a use of it.
func (s *Sessions) Get(id string) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.byID[id]; ok {
		sess.touch(time.Now())
		return sess, nil
	}
	return nil, ErrSessionNotFound
}

// Delete ends a session: its running calls are cancelled and its event
// streams end.
func (s *Sessions) Delete(id string) error {
	if id == api.DefaultSessionID {
		return ErrDeleteDefault
	}
	s.mu.Lock()
	sess, ok := s.byID[id]
	delete(s.byID, id)
	s.mu.Unlock()
	if !ok {
		return ErrSessionNotFound
	}
	sess.close()
	return nil
}

// List returns every live session, oldest first.
func (s *Sessions) List() []*Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Session, 0, len(s.byID))
	for _, sess := range s.byID {
		out = append(out, sess)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// closeAll ends every session, at shutdown.
func (s *Sessions) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sess := range s.byID {
		sess.close()
	}
}

// NewID returns prefix plus 16 random bytes in hex.
func NewID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
