package coordinator

import (
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/randid"
	"github.com/toolgate/toolgate/internal/store"
)

// Sessions is the bounded set of live sessions. "default" always exists.
type Sessions struct {
	cfg *Config
	rec *recorder // nil: nothing is stored

	mu   sync.Mutex
	byID map[string]*Session
}

// ErrNotFound and friends are the request-level errors sessions produce.
var (
	ErrSessionNotFound = &api.Error{Code: api.CodeNotFound, Message: "no such session"}
	ErrTooManySessions = &api.Error{Code: api.CodeTooManySessions, Message: "too many sessions; delete one first"}
	ErrDeleteDefault   = &api.Error{Code: api.CodeConflict, Message: `the "default" session cannot be deleted`}
	ErrSessionExists   = &api.Error{Code: api.CodeConflict, Message: "a session with this id exists"}
	errSessionID       = &api.Error{Code: api.CodeValidation, Message: "invalid session id",
		Fields: map[string]string{"id": "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"}}
)

// validSessionID reports whether a client may name a session id: a URL
// path segment as it stands, short enough for a log line.
func validSessionID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

func newSessions(cfg *Config, rec *recorder) *Sessions {
	s := &Sessions{cfg: cfg, rec: rec, byID: map[string]*Session{}}
	s.byID[api.DefaultSessionID] = s.newSession(api.DefaultSessionID, api.ModeAct, api.Permissions{})
	return s
}

// newSession builds a session that records itself in the store.
func (s *Sessions) newSession(id string, mode api.Mode, perms api.Permissions) *Session {
	sess := newSession(id, mode, perms, s.cfg)
	if s.rec != nil {
		sess.rec = s.rec
		sess.Files.MirrorEdits(func(p tool.Prior) { s.rec.edit(id, p) }, func(toolUseID string) { s.rec.editGone(id, toolUseID) })
	}
	return sess
}

// restore brings back a stored session (the "default" one takes the
// stored mode and rules). Past the session bound, the rest are dropped.
func (s *Sessions) restore(row store.Session) {
	var perms api.Permissions
	_ = json.Unmarshal(row.Rules, &perms)
	mode := api.Mode(row.Mode)
	if mode == api.ModeBypassPermissions && !s.cfg.AllowBypassPermissions {
		// The config no longer allows it: the session comes back asking.
		mode = api.ModeDefault
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.byID[row.ID]; ok {
		sess.mu.Lock()
		sess.mode, sess.permissions, sess.rulesParsed = mode, perms, false
		sess.mu.Unlock()
		sess.Events.MarkRestored()
		return
	}
	if len(s.byID) >= s.cfg.MaxSessions {
		return
	}
	sess := s.newSession(row.ID, mode, perms)
	sess.Created = row.CreatedAt
	if api.ValidDialect(api.Dialect(row.Dialect)) && row.Dialect != "" {
		sess.setDialect(api.Dialect(row.Dialect))
	}
	sess.Events.MarkRestored()
	s.byID[row.ID] = sess
}

// lookup finds a session without counting it as a use.
func (s *Sessions) lookup(id string) (*Session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.byID[id]
	return sess, ok
}

// Create starts a session with a fresh random id.
func (s *Sessions) Create(mode api.Mode, perms api.Permissions) (*Session, error) {
	return s.CreateNamed("", mode, perms)
}

// CreateNamed starts a session with the id the client chose, so that a
// client can name its conversation's session and find it again (or a
// collection of requests can refer to it); "" picks a random id. A live
// session holding the id is a conflict.
func (s *Sessions) CreateNamed(id string, mode api.Mode, perms api.Permissions) (*Session, error) {
	if id != "" && !validSessionID(id) {
		return nil, errSessionID
	}
	if mode == "" {
		mode = api.ModeAct
	}
	if s.full() {
		// Idle sessions leave before a new client is refused: first the
		// expired ones, then the least recently used one quiet for a
		// minute (evictFloor says why).
		now := time.Now()
		if len(s.ExpireIdle(now)) == 0 {
			s.evictLeastRecentlyUsed(now)
		}
	}
	s.mu.Lock()
	if _, taken := s.byID[id]; taken {
		s.mu.Unlock()
		return nil, ErrSessionExists
	}
	if len(s.byID) >= s.cfg.MaxSessions {
		s.mu.Unlock()
		return nil, ErrTooManySessions
	}
	if id == "" {
		id = NewID("ses_")
	}
	sess := s.newSession(id, mode, perms)
	s.byID[id] = sess
	s.mu.Unlock()
	s.rec.session(sess)
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
	s.rec.sessionGone(sess)
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
func NewID(prefix string) string { return prefix + randid.Hex(16) }
