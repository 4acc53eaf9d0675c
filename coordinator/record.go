package coordinator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/eventlog"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/store"
)

// What the store keeps of one call. Inputs above the cap keep only their
// hash and size (a call awaiting approval keeps its whole input until it
// ends, to run after a restart); each text of a result keeps its head and
// tail.
const (
	storeMaxInputBytes = 64 << 10
	storeTextHead      = 8 << 10
	storeTextTail      = 8 << 10
)

// recorder writes to the store what a restart must not lose: sessions,
// calls, approvals and edits. A nil recorder records nothing.
//
// A call that writes a file or runs a command is recorded on disk (an
// fsync'd commit, store.Synced) before it starts, so that after a crash,
// even a power loss, it is known to have started and is never run again;
// a command line the shell analysis finds only reads (the verdict that
// lets it run without approval) is committed without the fsync
// (audit.startDurability): a killed toolgate still never runs it twice,
// and after a power loss running it again changes nothing.
// its end is committed (store.Committed, no fsync) before its answer is
// sent, so that a killed toolgate answers its id again identically. After
// a power loss that end may be lost: the call then reads as interrupted,
// never as one to run again. Other writes are queued and batched off the
// request path.
type recorder struct {
	st     store.Store
	logger *slog.Logger
	// stopping is set when the coordinator closes: calls its close
	// cancels are left as the store has them (running or awaiting
	// approval), to come back after the restart like a crash's.
	stopping atomic.Bool
}

func (r *recorder) apply(d store.Durability, ops ...store.Op) error {
	if r == nil {
		return nil
	}
	err := r.st.Apply(d, ops...)
	if err != nil {
		r.logger.Error("store write failed", "err", err, "durability", int(d))
	}
	return err
}

// session records a session's mode and rules, on disk before its
// creation or change is acknowledged: a power loss must not bring back
// rules wider than the ones the client set.
func (r *recorder) session(s *Session) {
	if r == nil {
		return
	}
	v := s.View()
	rules, _ := json.Marshal(v.Permissions)
	_ = r.apply(store.Synced, store.PutSession{Session: store.Session{ID: v.ID, Mode: string(v.Mode), Dialect: string(v.Dialect), Rules: rules,
		CreatedAt: v.CreatedAt, UpdatedAt: time.Now().UTC()}})
}

// sessionGone forgets a deleted session: its calls stay in the audit
// log, discarded, as do those that end after it (row), so that a session
// a client creates later under the same id inherits none of them.
func (r *recorder) sessionGone(s *Session) {
	s.deleted.Store(true)
	_ = r.apply(store.Synced, store.DeleteSession{ID: s.ID})
}

// audit is what the record of a call needs beyond its CallRecord.
type audit struct {
	seq     int64
	session string
	input   json.RawMessage
	claimed time.Time
	// effects marks a call that writes or runs a command: its start is
	// recorded on disk, its end committed before its answer.
	effects bool
	// readsOnly marks a command line the shell analysis finds only reads
	// (shellcmd.Analysis.ReadOnly): its start needs no fsync.
	readsOnly bool
	decision  string
	decidedBy string
	reason    string // why a call awaiting approval asks
	// waited marks a call recorded awaiting approval: its end is
	// committed before its answer too, so a killed toolgate cannot bring
	// back as awaiting a call whose rejection a client has seen.
	waited bool
}

// startDurability is how durable a call's start record must be before the
// call runs: fsync'd for a call with effects, committed for a command
// line that only reads. The fsync was 0.7 ms of a sandboxed `true`'s
// path (bench/peers/run.sh, `true` via execute_command,
// docs/benchmarks.md).
func (a *audit) startDurability() store.Durability {
	if a.readsOnly {
		return store.Committed
	}
	return store.Synced
}

// decide notes the permission stage's decision and who made it.
func (a *audit) decide(decision, by string) { a.decision, a.decidedBy = decision, by }

// callStarted records that a call is about to run. For a call with
// effects, an error means it must not run: after a crash nobody would know
// it had.
//
// A call without effects is not recorded until it ends: running it again
// after a crash changes nothing, and one write per call keeps the store
// off the request path's budget.
func (r *recorder) callStarted(s *Session, e *callEntry) error {
	if r == nil || !e.audit.effects {
		return nil
	}
	return r.apply(e.audit.startDurability(), store.PutCall{Call: r.row(s, e, nil, false)})
}

// callStarting starts what callStarted does, on a goroutine of its own,
// and returns the wait for it: the call's handler prepares meanwhile and
// waits right before its first effect (tool.Spec.AwaitsStart), so that
// the fsync overlaps the preparation without anything having run before
// the start is on disk. The row is taken now, as callStarted takes it.
// Nil when nothing is written; the wait is to be called once.
func (r *recorder) callStarting(s *Session, e *callEntry) func() error {
	if r == nil || !e.audit.effects {
		return nil
	}
	row := r.row(s, e, nil, false)
	done := make(chan error, 1)
	d := e.audit.startDurability()
	go func() { done <- r.apply(d, store.PutCall{Call: row}) }()
	return func() error { return <-done }
}

// callAwaiting records a call awaiting approval, with its whole input, so
// that after a restart it comes back awaiting. It is committed, not
// fsync'd: nothing has run yet, and a call a power loss forgets is asked
// about again when its id is posted again.
func (r *recorder) callAwaiting(s *Session, e *callEntry) {
	if r != nil {
		e.audit.waited = r.apply(store.Committed, store.PutCall{Call: r.row(s, e, nil, true)}) == nil
	}
}

// callFinished records a call's end and result; rec is its final record.
func (r *recorder) callFinished(s *Session, e *callEntry, rec *api.CallRecord, res *api.ToolResult) {
	if r == nil || r.stopping.Load() && rec.Status == api.StatusCancelled {
		return
	}
	d := store.Queued
	if e.audit.effects || e.audit.waited {
		d = store.Committed
	}
	_ = r.apply(d, store.PutCall{Call: r.rowOf(s, e, rec, res, false)})
}

// discard marks forgotten calls, so their ids may run again after a
// restart too.
func (r *recorder) discard(sessionID string, ids []string) {
	if len(ids) > 0 {
		_ = r.apply(store.Queued, store.DiscardCalls{SessionID: sessionID, ToolUseIDs: ids})
	}
}

// row is a call's store record now.
func (r *recorder) row(s *Session, e *callEntry, res *api.ToolResult, wholeInput bool) store.Call {
	s.mu.Lock()
	rec := e.record
	s.mu.Unlock()
	return r.rowOf(s, e, &rec, res, wholeInput)
}

// rowOf is the store record of a call whose record is rec.
func (r *recorder) rowOf(s *Session, e *callEntry, rec *api.CallRecord, res *api.ToolResult, wholeInput bool) store.Call {
	a := &e.audit
	c := callRow(s, e, rec)
	c.Input, c.InputBytes = keptInput(a.input, wholeInput), len(a.input)
	if res != nil && !a.effects && !a.waited {
		// A call that changed nothing (a read, a listing, a denial)
		// keeps its result's size only: the session holds its result
		// while it keeps the call, and its text was most of what its
		// record cost (BenchmarkCallRecord, ./internal/store/). A
		// repeat of its id after that is answered with notKeptText.
		//
		// That size and the input's hash are left to the store
		// (store.Call.Fill): this record is only queued (callFinished),
		// and the SQLite store's writer works them out as it writes it,
		// off the call's path (BenchmarkReadRecordFill, ./coordinator/).
		c.Fill = resultFill(a.input, res)
		return c
	}
	c.InputSHA256 = inputSHA256(a.input)
	switch {
	case res == nil:
	case keptWhole(*res):
		// The JSON is made only when someone reads or writes it: the
		// session holds the same texts meanwhile.
		kept := *res
		kept.Content = slices.Clone(res.Content)
		c.ResultLater = func() (json.RawMessage, int) { return boundResult(kept) }
		c.LaterBytes = eventlog.ResultSize(&kept)
	default:
		c.Result, c.ResultBytes = boundResult(*res)
	}
	return c
}

// resultFill is the store.Call.Fill of a record that keeps its input's
// hash and its result's size only. It keeps the result's blocks as they
// are now (the caller's slice may change; its texts do not): those of a
// result of up to two blocks (a read's text and Cline's note on a
// repeated read), most calls', inside the func itself, which is then the
// one allocation (three before: the func, the result it moved to the
// heap, the blocks' copy; BenchmarkRecordStage).
func resultFill(in json.RawMessage, res *api.ToolResult) func(*store.Call) {
	// Each captured variable is declared once and its address taken only
	// of a copy inside the func, so the func holds it by value.
	if n := len(res.Content); n <= len(fewBlocks{}) {
		typ, id, isError, none := res.Type, res.ToolUseID, res.IsError, res.Content == nil
		blocks := fewOf(res.Content)
		return func(c *store.Call) {
			local := blocks
			kept := api.ToolResult{Type: typ, ToolUseID: id, Content: local[:n], IsError: isError}
			if none {
				kept.Content = nil
			}
			c.InputSHA256 = inputSHA256(in)
			c.ResultBytes = resultJSONSize(&kept)
		}
	}
	kept := api.ToolResult{Type: res.Type, ToolUseID: res.ToolUseID, Content: slices.Clone(res.Content), IsError: res.IsError}
	return func(c *store.Call) {
		whole := kept
		c.InputSHA256 = inputSHA256(in)
		c.ResultBytes = resultJSONSize(&whole)
	}
}

// fewBlocks is what resultFill keeps a result's blocks in when they fit.
type fewBlocks [2]api.Content

// fewOf is blocks, as many as fit, in a fewBlocks.
func fewOf(blocks []api.Content) (few fewBlocks) {
	copy(few[:], blocks)
	return few
}

// callRow is the part of a call's store record its record and audit
// give: who called what, how it ended and how it was decided; the input
// and the result are rowOf's to add.
func callRow(s *Session, e *callEntry, rec *api.CallRecord) store.Call {
	a := &e.audit
	c := store.Call{Seq: a.seq, SessionID: s.ID, ToolUseID: rec.ToolUseID, MessageID: rec.MessageID, Tool: rec.Name,
		State: string(rec.State), Status: string(rec.Status), Decision: a.decision, DecidedBy: a.decidedBy,
		ApprovalReason: a.reason, StartedAt: a.claimed, DurationMS: rec.DurationMS, Discarded: s.deleted.Load()}
	if rec.StartedAt != nil {
		c.StartedAt = *rec.StartedAt
	}
	if rec.Error != nil {
		c.ErrorCode = rec.Error.Code
	}
	return c
}

// keptWhole reports whether boundResult keeps a result as it is: only
// texts, none longer than what a stored text keeps. Such a result costs
// the store no more kept as it is than as JSON, and it shares its texts
// with the session.
func keptWhole(res api.ToolResult) bool {
	for _, c := range res.Content {
		if c.Type != api.TypeText || c.Source != nil || len(c.Text) > storeTextHead+storeTextTail {
			return false
		}
	}
	return true
}

// boundInput keeps an input whole up to the cap (or when whole is set),
// and its hash and size always.
func boundInput(in json.RawMessage, whole bool) (json.RawMessage, string, int) {
	return keptInput(in, whole), inputSHA256(in), len(in)
}

// keptInput is what a record keeps of an input: all of it up to the cap
// (or when whole is set), else nothing.
func keptInput(in json.RawMessage, whole bool) json.RawMessage {
	if len(in) > storeMaxInputBytes && !whole {
		return nil
	}
	return in
}

// inputSHA256 is an input's hash as a record keeps it.
func inputSHA256(in json.RawMessage) string {
	sum := sha256.Sum256(in)
	return hex.EncodeToString(sum[:])
}

// boundResult is a tool_result as stored: each long text keeps its head
// and tail with a note of what was cut between; images keep only their
// type and size. It returns the JSON and the size of the whole result.
func boundResult(res api.ToolResult) (json.RawMessage, int) {
	full, _ := json.Marshal(res)
	if len(full) <= storeTextHead+storeTextTail {
		return full, len(full)
	}
	cut := res
	cut.Content = make([]api.Content, len(res.Content))
	for i, c := range res.Content {
		switch {
		case c.Type == api.TypeText && len(c.Text) > storeTextHead+storeTextTail:
			c.Text = c.Text[:storeTextHead] + fmt.Sprintf("\n[… %d bytes not kept …]\n", len(c.Text)-storeTextHead-storeTextTail) +
				c.Text[len(c.Text)-storeTextTail:]
		case c.Type != api.TypeText:
			size, _ := json.Marshal(c)
			c = api.TextContent(fmt.Sprintf("[%s block of %d bytes not kept]", c.Type, len(size)))
		}
		cut.Content[i] = c
	}
	out, _ := json.Marshal(cut)
	return out, len(full)
}

// decidedByRule says which rule or default decided a verdict.
func decidedByRule(v policy.Verdict) string {
	switch {
	case v.Rule != nil:
		return "rule: " + v.Rule.Text
	case v.Reason == policy.ReadDefaultReason:
		return decidedByReadDefault
	case v.Reason == policy.AllowAllReason:
		return decidedByAllowAll
	}
	return "default: " + v.Reason
}

// decidedByReadDefault is decidedByRule of the default verdict on a read,
// made once rather than on every read (BenchmarkReadPolicy).
const decidedByReadDefault = "default: " + policy.ReadDefaultReason

// decidedByAllowAll is decidedByRule of allow_all's verdict, the
// verdict on nearly every call under allow_all, made once too.
const decidedByAllowAll = "default: " + policy.AllowAllReason

// hasEffects reports whether running the tool may change something
// outside toolgate: a write, a command, an MCP server's tool, a subagent.
// Such calls are recorded on disk before they run, and committed before
// they answer.
func hasEffects(t *tool.Tool) bool {
	return t != nil && (t.Writes || t.RunsCommands() || t.Name == tool.UseMCPTool || strings.HasPrefix(t.Name, tool.SubagentPrefix))
}
