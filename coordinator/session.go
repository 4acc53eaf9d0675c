package coordinator

import (
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/eventlog"
	"github.com/toolgate/toolgate/coordinator/filememory"
	"github.com/toolgate/toolgate/coordinator/jobs"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// Session is one conversation's state: its mode and rules, its calls (by
// tool_use id, so a repeated id is never run twice) and its event log.
type Session struct {
	ID      string
	Created time.Time
	Events  *eventlog.Log
	// Files is what the session read and wrote, for the stale-file guard
	// and reverts.
	Files *filememory.Memory
	// ShellDir is where the session's next command starts, for a dialect
	// whose shell keeps its directory (claude_code's Bash).
	ShellDir *tool.ShellDir

	ctx    context.Context // cancelled when the session is deleted
	cancel context.CancelFunc
	// deleted is set when the session is deleted (not stopped): a call
	// of its that ends afterwards is stored discarded, so a later
	// session of the same id never inherits it.
	deleted atomic.Bool

	lastUsed atomic.Int64 // unix nanoseconds of the last request naming it
	holds    atomic.Int32 // open event streams
	// dialect is read without the lock: a call asks for it about eight
	// times, and the calls of 16 connections on one session queued on
	// the lock for it (a third of the lock's waits in its mutex profile,
	// BenchmarkToolUseVsBare/route=tool_use/conns=16, ./cmd/toolgate/;
	// docs/benchmarks.md). Written under mu, as the rest of the session.
	dialect atomic.Pointer[api.Dialect]

	mu          sync.Mutex
	mode        api.Mode
	permissions api.Permissions
	// rules are permissions parsed, kept until the permissions change
	// (rulesParsed false): the policy asks for them on every call.
	rules       []*policy.Rule
	rulesParsed bool
	todos       []api.Todo
	calls       map[string]*callEntry
	callOrder   []string
	maxCalls    int
	// callBytes is what the kept calls' results hold (eventlog.ResultSize), bounded
	// by maxCallBytes.
	callBytes, maxCallBytes int

	// open holds the messages whose blocks are still streaming in.
	open   *openMessages
	policy sessionPolicy // approvals and the rejection cascade
	loop   loopGuard     // identical calls in a row
	// mistakes counts invalid calls in a row (Cline's consecutiveMistakeCount)
	mistakes mistakeCounter
	jobs     *jobs.Table // background jobs
	// todosFn is s.SetTodos as a func value, made once rather than per
	// call (execute; BenchmarkReadPipeline in ./handlers/).
	todosFn func([]api.Todo)
	net     sessionNet // the network its commands share (session_network.go)

	rec *recorder // nil: nothing is stored
	// stored holds the ids of calls made before a restart: a repeat of
	// one is answered from the store.
	stored map[string]bool
	// dropped holds the ids of calls evicted from calls: a repeat of one
	// is answered from the store, or with result_dropped, never run again.
	dropped droppedIDs
	// taskProgress is the model's latest task checklist (task_progress).
	taskProgress string
}

// callEntry is one call's live state. woken is set when result is final
// and the call's waiters may go (finish). The call's context exists from
// the moment it is queued, so a call can be cancelled before it starts;
// cancel is nil once the call is done.
type callEntry struct {
	record api.CallRecord
	result api.ToolResult
	// done is closed when woken is set; made only once a repeat of the
	// call's id waits for it (waitLocked), not for every call
	// (BenchmarkCallDone). Both under the session's lock.
	done      chan struct{}
	woken     bool
	ctx       context.Context
	cancel    context.CancelCauseFunc
	interrupt tool.InterruptBehavior
	output    tool.KeptOutput // full output, when the tool kept one
	audit     audit           // what the store records beyond record
	readTurn  uint64          // its turn among the session's reads, 0 for none
	size      int             // its result's share of the session's callBytes
	// started is what record.StartedAt points to once the call starts:
	// kept in the entry, not in an allocation of its own (start).
	started time.Time
}

func newSession(id string, mode api.Mode, perms api.Permissions, cfg *Config) *Session {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		ID: id, Created: time.Now().UTC(), Events: eventlog.New(id, cfg.EventLogSize, cfg.EventLogBytes), Files: NewFileMemory(*cfg),
		ctx: ctx, cancel: cancel, mode: mode, permissions: perms,
		calls: map[string]*callEntry{}, maxCalls: cfg.MaxCallsPerSession, maxCallBytes: cfg.MaxCallBytesPerSession,
		open: newOpenMessages(cfg),
	}
	s.dialect.Store(&defaultDialect)
	s.jobs = jobs.NewTable(ctx)
	s.todosFn = s.SetTodos
	s.ShellDir = &tool.ShellDir{}
	s.touch(s.Created)
	return s
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
	return api.Session{ID: s.ID, Mode: s.mode, Permissions: s.permissions, Dialect: s.Dialect(),
		Todos: append([]api.Todo(nil), s.todos...), CreatedAt: s.Created, TaskProgress: s.taskProgress}
}

// defaultDialect is what every new session's dialect points to; never
// written (setDialect points to a dialect of its own).
var defaultDialect = api.DefaultDialect

// Dialect is the tool vocabulary the session's model speaks.
func (s *Session) Dialect() api.Dialect { return *s.dialect.Load() }

// setDialect changes the session's dialect.
func (s *Session) setDialect(d api.Dialect) { s.dialect.Store(&d) }

// SetTodos replaces the session's todo list and announces it.
func (s *Session) SetTodos(todos []api.Todo) {
	s.mu.Lock()
	s.todos = append([]api.Todo(nil), todos...)
	s.mu.Unlock()
	s.Events.Append(api.Event{Type: api.EventTodosUpdated, Todos: append([]api.Todo{}, todos...)})
}

// Update changes the mode and, when given, the session's own rules.
func (s *Session) Update(req api.UpdateSessionRequest) {
	s.mu.Lock()
	if req.Mode != "" {
		s.mode = req.Mode
	}
	if req.Permissions != nil {
		s.permissions, s.rulesParsed = *req.Permissions, false
	}
	if req.Dialect != "" {
		s.setDialect(req.Dialect)
	}
	s.mu.Unlock()
	s.rec.session(s)
}

// Done is closed when the session is deleted.
func (s *Session) Done() <-chan struct{} { return s.ctx.Done() }

// claim registers a call by its tool_use id. When the id is already known
// it returns that entry and false: the caller waits for it instead of
// running the call again.
func (s *Session) claim(use api.ToolUse, msgID string, interrupt tool.InterruptBehavior) (*callEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.calls[use.ID]; ok {
		return e, false
	}
	dropped := s.dropped.has(use.ID)
	if e := s.storedCallLocked(use.ID, dropped); e != nil {
		return e, false
	}
	if dropped {
		return s.droppedCallLocked(use, msgID), false
	}
	e := &callEntry{
		record:    api.CallRecord{ToolUseID: use.ID, Name: use.Name, MessageID: msgID, State: api.StateQueued},
		interrupt: interrupt,
		audit:     audit{session: s.ID, input: use.Input, claimed: time.Now().UTC()},
	}
	if s.rec != nil {
		e.audit.seq = s.rec.st.NextSeq()
	}
	// The call's context is not made a child of the session's: a child
	// joins its parent's set (the parent's lock and map, taken at the
	// claim and again at the finish, lines of every call otherwise
	// untouched); close cancels the calls itself (cancelCallsLocked).
	// Speed only: BenchmarkCallContext (docs/benchmarks.md).
	e.ctx, e.cancel = context.WithCancelCause(context.Background())
	if s.ctx.Err() != nil { // closed: the call starts cancelled, as a child would
		e.cancel(context.Cause(s.ctx))
	}
	s.calls[use.ID] = e
	s.callOrder = append(s.callOrder, use.ID)
	s.evictLocked(nil)
	return e, true
}

// evictLocked forgets the oldest finished calls beyond the bounds: more
// than maxCalls of them, or results of more than maxCallBytes (the newest
// call and keep stay, however large).
func (s *Session) evictLocked(keep *callEntry) {
	for len(s.callOrder) > s.maxCalls || s.callBytes > s.maxCallBytes && len(s.callOrder) > 1 {
		oldest := s.callOrder[0]
		e := s.calls[oldest]
		if e.cancel != nil || e == keep {
			return // the oldest is running (or is keep): it and everything after stay
		}
		e.dropOutputLocked()
		s.callBytes -= e.size
		delete(s.calls, oldest)
		s.dropped.add(oldest)
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

// start moves a queued call to running, unless it was cancelled while it
// waited. Checking and changing under the lock that Interrupt holds means
// an interrupt sees the call either queued (and cancels it before it
// starts) or running (and, for a block-kind call, lets it finish): a
// block-kind call never starts with a cancelled context.
func (s *Session) start(e *callEntry) (api.CallRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.ctx.Err() != nil {
		return e.record, false
	}
	e.started = time.Now().UTC()
	e.record.State = api.StateRunning
	e.record.StartedAt = &e.started
	return e.record, true
}

// finish stores a call's final record and result, releases its context
// and wakes its waiters. It returns the final record.
func (s *Session) finish(e *callEntry, status api.CallStatus, dur time.Duration, detail *api.ErrorDetail, res *api.ToolResult) api.CallRecord {
	s.mu.Lock()
	e.record.State = api.StateDone
	e.record.Status = status
	e.record.DurationMS = float64(dur.Microseconds()) / 1000
	e.record.Error = detail
	e.result = *res
	rec, cancel := e.record, e.cancel
	e.cancel = nil
	if s.calls[e.record.ToolUseID] == e {
		e.size = eventlog.ResultSize(res)
		s.callBytes += e.size
		s.evictLocked(e)
	}
	s.mu.Unlock()
	// Recorded before anyone is woken: an answer is never sent for a call
	// with effects whose result a killed toolgate could still lose. The
	// record is the one taken under the lock above: a done call's does
	// not change.
	s.rec.callFinished(s, e, &rec, res)
	// A read that ended before counting (refused, failed, cancelled)
	// must not hold up the reads queued after it.
	s.Files.EndRead(e.readTurn)
	cancel(nil)
	s.mu.Lock()
	done := e.wakeLocked()
	s.mu.Unlock()
	if done != nil {
		close(done)
	}
	return rec
}

// waitLocked is what a repeat of the call's id waits on until the call's
// result is final: nil once it is.
func (e *callEntry) waitLocked() <-chan struct{} {
	if e.woken {
		return nil
	}
	if e.done == nil {
		e.done = make(chan struct{})
	}
	return e.done
}

// wakeLocked marks the call's result final, and returns the channel its
// waiters wait on, for the caller to close: nil when none waits.
func (e *callEntry) wakeLocked() chan struct{} {
	e.woken = true
	return e.done
}

// forget drops finished calls, so their ids may be used again and their
// results are no longer served. Calls still running are kept.
func (s *Session) forget(ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gone := map[string]bool{}
	for _, id := range ids {
		s.dropped.remove(id)
		if e, ok := s.calls[id]; ok && e.cancel == nil {
			s.callBytes -= e.size
			delete(s.calls, id)
			gone[id] = true
		}
	}
	if len(gone) == 0 {
		return
	}
	for id := range gone {
		delete(s.stored, id)
	}
	s.rec.discard(s.ID, slices.Collect(maps.Keys(gone)))
	kept := s.callOrder[:0]
	for _, id := range s.callOrder {
		if !gone[id] {
			kept = append(kept, id)
		}
	}
	s.callOrder = kept
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

// Cancel cancels one queued or running call; it reports whether the call
// was not done yet.
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

// cancelUnlessFinishing cancels a call as an interrupt would: unless it
// is a block-kind call already executing (a write is never torn). A call
// still waiting for its approval has not started, so it is cancelled.
func (s *Session) cancelUnlessFinishing(toolUseID string, cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.calls[toolUseID]
	if !ok || e.cancel == nil || e.record.State == api.StateRunning && e.interrupt == tool.InterruptBlock {
		return
	}
	e.cancel(cause)
}

// Interrupt stops the session's work the way a user's interrupt does:
// running cancel-kind calls are cancelled, running block-kind calls are
// left to finish (a write is never torn), and calls not yet started are
// cancelled before they start. Blocks that later reach a message still
// streaming in are cancelled too. Every call still ends with its
// tool_result. It returns how many calls were cancelled and how many are
// finishing.
func (s *Session) Interrupt(cause error) (cancelled, finishing int) {
	s.mu.Lock()
	for _, e := range s.calls {
		switch {
		case e.cancel == nil:
		case e.record.State == api.StateRunning && e.interrupt == tool.InterruptBlock:
			finishing++
		default:
			e.cancel(cause)
			cancelled++
		}
	}
	s.mu.Unlock()
	s.open.interrupt(cause)
	return cancelled, finishing
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
	s.cancelCallsLocked()
	s.mu.Unlock()
	s.jobs.CloseAll()
	s.closeNetwork() // once no job holds it
	s.mu.Lock()
	for _, e := range s.calls {
		e.dropOutputLocked()
	}
	s.mu.Unlock()
	s.Events.Close()
}

// cancelCallsLocked cancels every call not done yet with the session's
// cause, as the session's context would cancel its children: a call's
// context is not one of them (claim). A call claimed after this starts
// cancelled.
func (s *Session) cancelCallsLocked() {
	cause := context.Cause(s.ctx)
	for _, e := range s.calls {
		if e.cancel != nil {
			e.cancel(cause)
		}
	}
}

// Context is cancelled when the session is deleted, and the session's
// calls with it (cancelCallsLocked).
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

// Job finds a background job of the session by id.
func (s *Session) Job(id string) (tool.Job, bool) { return s.jobs.Get(id) }

// Jobs lists the session's background jobs, oldest first.
func (s *Session) Jobs() []tool.Job { return s.jobs.List() }
