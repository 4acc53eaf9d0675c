package coordinator

import (
	"context"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
)

// Session is one conversation's state: its mode and rules, its calls (by
// tool_use id, so a repeated id is never run twice) and its event log.
type Session struct {
	ID      string
	Created time.Time
	Events  *EventLog
	// Files is what the session read and wrote, for the stale-file guard
	// and reverts.
	Files *FileMemory

	ctx    context.Context // cancelled when the session is deleted
	cancel context.CancelFunc

	mu          sync.Mutex
	mode        api.Mode
	permissions api.Permissions
	calls       map[string]*callEntry
	callOrder   []string
	maxCalls    int
}

// callEntry is one call's live state. done is closed when result is final.
type callEntry struct {
	record api.CallRecord
	result api.ToolResult
	done   chan struct{}
	cancel context.CancelCauseFunc
	output KeptOutput // full output, when the tool kept one
}

func newSession(id string, mode api.Mode, perms api.Permissions, cfg *Config) *Session {
	ctx, cancel := context.WithCancel(context.Background())
	return &Session{
		ID: id, Created: time.Now().UTC(), Events: NewEventLog(id, cfg.EventLogSize), Files: NewFileMemory(*cfg),
		ctx: ctx, cancel: cancel, mode: mode, permissions: perms,
		calls: map[string]*callEntry{}, maxCalls: cfg.MaxCallsPerSession,
	}
}

// Mode is the session's current mode.
func (s *Session) Mode() api.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// View is the session as clients see it.
func (s *Session) View() api.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return api.Session{ID: s.ID, Mode: s.mode, Permissions: s.permissions, CreatedAt: s.Created}
}

// Update changes the mode and, when given, the session's own rules.
func (s *Session) Update(req api.UpdateSessionRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.Mode != "" {
		s.mode = req.Mode
	}
	if req.Permissions != nil {
		s.permissions = *req.Permissions
	}
}

// Done is closed when the session is deleted.
func (s *Session) Done() <-chan struct{} { return s.ctx.Done() }

// claim registers a call by its tool_use id. When the id is already known
// it returns that entry and false: the caller waits for it instead of
// running the call again.
func (s *Session) claim(use api.ToolUse, msgID string) (*callEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.calls[use.ID]; ok {
		return e, false
	}
	e := &callEntry{
		record: api.CallRecord{ToolUseID: use.ID, Name: use.Name, MessageID: msgID, State: api.StateQueued},
		done:   make(chan struct{}),
	}
	s.calls[use.ID] = e
	s.callOrder = append(s.callOrder, use.ID)
	s.evictLocked()
	return e, true
}

// evictLocked forgets the oldest finished calls beyond the bound.
func (s *Session) evictLocked() {
	for len(s.callOrder) > s.maxCalls {
		oldest := s.callOrder[0]
		e := s.calls[oldest]
		select {
		case <-e.done:
		default:
			return // the oldest is still running; keep it and everything after
		}
		e.dropOutputLocked()
		delete(s.calls, oldest)
		s.callOrder = s.callOrder[1:]
	}
}

// setState records a state change of a running call and returns a copy of
// the record.
func (s *Session) setState(e *callEntry, state api.CallState, started *time.Time) api.CallRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.record.State = state
	if started != nil {
		e.record.StartedAt = started
	}
	return e.record
}

// setCancel stores how to cancel a running call.
func (s *Session) setCancel(e *callEntry, cancel context.CancelCauseFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.cancel = cancel
}

// finish stores a call's final record and result and wakes its waiters.
func (s *Session) finish(e *callEntry, rec api.CallRecord, res api.ToolResult) {
	s.mu.Lock()
	rec.State = api.StateDone
	e.record, e.result, e.cancel = rec, res, nil
	s.mu.Unlock()
	close(e.done)
}

// Calls lists call records in the order calls arrived, optionally only
// those in one state.
func (s *Session) Calls(state api.CallState) []api.CallRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []api.CallRecord{}
	for _, id := range s.callOrder {
		r := s.calls[id].record
		if state == "" || r.State == state {
			out = append(out, r)
		}
	}
	return out
}

// Cancel cancels one running call; it reports whether the call was running.
func (s *Session) Cancel(toolUseID string, cause error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.calls[toolUseID]
	if !ok || e.cancel == nil {
		return false
	}
	e.cancel(cause)
	return true
}

// Interrupt cancels every running call of the session and returns how many.
func (s *Session) Interrupt(cause error) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.calls {
		if e.cancel != nil {
			e.cancel(cause)
			n++
		}
	}
	return n
}

// HasCall reports whether the session knows a tool_use id.
func (s *Session) HasCall(toolUseID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.calls[toolUseID]
	return ok
}

func (s *Session) close() {
	s.cancel()
	s.mu.Lock()
	for _, e := range s.calls {
		e.dropOutputLocked()
	}
	s.mu.Unlock()
	s.Events.Close()
}

// Context is cancelled when the session is deleted; calls run under it.
func (s *Session) Context() context.Context { return s.ctx }

// Call returns one call's record and, once it has finished, its result.
func (s *Session) Call(toolUseID string) (api.CallRecord, *api.ToolResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.calls[toolUseID]
	if !ok {
		return api.CallRecord{}, nil, false
	}
	if e.record.State != api.StateDone {
		return e.record, nil, true
	}
	res := e.result
	return e.record, &res, true
}
