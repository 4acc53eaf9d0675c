package coordinator

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/store"
)

// interruptedText is the result of a call that was running (or queued)
// when toolgate stopped. It is never run again: it may have done some or
// all of its work.
const interruptedText = "This call was interrupted: toolgate stopped while the call was %s. " +
	"It was not run again, since it may already have had effects; check its effects (files, command output) " +
	"before retrying it under a new tool_use id."

// restore brings back what the store kept from before a restart: sessions
// with their rules, the ids of their calls (a repeat is answered from the
// store), their edits (for reverts), and their unfinished calls. Calls
// that were running are recorded interrupted; calls awaiting approval
// wait again, announced on their session's stream.
func (c *Coordinator) restore(undo UndoFunc) error {
	st := c.rec.st
	rows, err := st.Sessions()
	if err != nil {
		return fmt.Errorf("load sessions: %w", err)
	}
	for _, row := range rows {
		c.sessions.restore(row)
	}
	ids, err := st.CallIDs()
	if err != nil {
		return fmt.Errorf("load call ids: %w", err)
	}
	for sid, list := range ids {
		if s, ok := c.sessions.lookup(sid); ok {
			s.stored = make(map[string]bool, len(list))
			for _, id := range list {
				s.stored[id] = true
			}
		}
	}
	if err := c.restoreEdits(undo); err != nil {
		return err
	}
	unfinished, err := st.Unfinished()
	if err != nil {
		return fmt.Errorf("load unfinished calls: %w", err)
	}
	for _, row := range unfinished {
		s, ok := c.sessions.lookup(row.SessionID)
		if ok && row.State == string(api.StateAwaitingApproval) && row.Input != nil {
			c.resume(s, row)
			continue
		}
		if err := c.markInterrupted(row); err != nil {
			return err
		}
	}
	return c.restoreCalls()
}

// markInterrupted ends a call a stop cut short.
func (c *Coordinator) markInterrupted(row store.Call) error {
	was := "running"
	switch api.CallState(row.State) {
	case api.StateQueued:
		was = "queued (it had not started)"
	case api.StateAwaitingApproval:
		was = "awaiting approval (it had not started)"
	case api.StateAwaitingInput:
		was = "waiting for the user's answer"
	}
	res := api.NewToolResult(row.ToolUseID, fmt.Sprintf(interruptedText, was), true)
	row.State, row.Status, row.ErrorCode = string(api.StateDone), string(api.StatusInterrupted), api.ToolCodeInterrupted
	row.Result, row.ResultBytes = boundResult(res)
	if len(row.Input) > storeMaxInputBytes {
		row.Input = nil
	}
	return c.rec.st.Apply(store.Synced, store.PutCall{Call: row})
}

// resume runs again, from its approval stage, a call that was awaiting
// approval when toolgate stopped: the policy decides afresh under the
// session's restored rules and, when it still asks, the call waits for a
// decision and is announced with tool.awaiting_approval.
func (c *Coordinator) resume(s *Session, row store.Call) {
	use := api.ToolUse{Type: api.TypeToolUse, ID: row.ToolUseID, Name: row.Tool, Input: row.Input}
	cs := c.prepare(s, use)
	s.mu.Lock()
	delete(s.stored, row.ToolUseID)
	s.mu.Unlock()
	e, fresh := c.enqueue(s, row.MessageID, cs)
	if !fresh {
		return
	}
	e.audit.seq, e.audit.claimed = row.Seq, row.StartedAt
	go c.runCall(s, e, cs)
}

// notKeptText answers a repeat of a call whose record kept no result:
// one that changed nothing, such as a read (see recorder.row).
const notKeptText = "This tool_use id already ran in this session; its result was not kept (toolgate keeps the results of " +
	"calls that change nothing, such as reads, only while the session holds the call). The call was not run again; " +
	"send it with a new tool_use id to run it again."

// storedCallLocked answers from the store a tool_use id the session used
// before a restart, or whose call it dropped since: the call is known,
// done, and never runs again. dropped says the session dropped it.
func (s *Session) storedCallLocked(id string, dropped bool) *callEntry {
	if !s.stored[id] && !dropped || s.rec == nil {
		return nil
	}
	if dropped {
		// The dropped call's row may still wait in the store's write
		// queue: a committed write of nothing waits for it.
		_ = s.rec.apply(store.Committed)
	}
	row, ok, err := s.rec.st.FindCall(s.ID, id)
	if err != nil {
		s.rec.logger.Error("store read failed", "err", err, "tool_use_id", id)
	}
	if !ok || row.State != string(api.StateDone) {
		return nil
	}
	return s.installStoredLocked(row)
}

// storedCall brings back from the store a done call the session no longer
// lists, and returns its record.
func (s *Session) storedCall(id string) (api.CallRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.calls[id]; e != nil {
		return e.record, true
	}
	e := s.storedCallLocked(id, s.dropped.has(id))
	if e == nil {
		return api.CallRecord{}, false
	}
	return e.record, true
}

// installStoredLocked puts a done call read from the store among the
// session's calls, as a finished entry, and returns it.
func (s *Session) installStoredLocked(row store.Call) *callEntry {
	id := row.ToolUseID
	var res api.ToolResult
	switch {
	case row.Result == nil:
		res = api.NewToolResult(id, notKeptText, true)
	case json.Unmarshal(row.Result, &res) != nil:
		res = api.NewToolResult(id, "The stored result of this call could not be read.", true)
	}
	started := row.StartedAt
	rec := api.CallRecord{ToolUseID: id, Name: row.Tool, MessageID: row.MessageID, State: api.StateDone,
		Status: api.CallStatus(row.Status), StartedAt: &started, DurationMS: row.DurationMS}
	if row.ErrorCode != "" {
		rec.Error = &api.ErrorDetail{Code: row.ErrorCode, Message: firstText(tool.Result{Content: res.Content})}
	}
	e := &callEntry{record: rec, result: res, woken: true}
	s.calls[id] = e
	s.callOrder = append(s.callOrder, id)
	s.evictLocked(e)
	return e
}

// restoreCalls lists again, after a restart, each session's most recent
// finished calls (as many as a session keeps), oldest first as they ran:
// GET .../calls and a revert see them without the client posting them
// again. Older ones stay in the store, answered when their id is posted.
func (c *Coordinator) restoreCalls() error {
	for _, s := range c.sessions.List() {
		page, err := c.rec.st.Audit(store.Query{SessionID: s.ID, Limit: s.maxCalls})
		if err != nil {
			return fmt.Errorf("load the calls of session %s: %w", s.ID, err)
		}
		s.mu.Lock()
		for i := len(page.Calls) - 1; i >= 0; i-- {
			row := page.Calls[i]
			if row.State != string(api.StateDone) || row.Discarded || s.calls[row.ToolUseID] != nil {
				continue
			}
			s.installStoredLocked(row)
		}
		s.mu.Unlock()
	}
	return nil
}

// UndoFunc rebuilds the undo of an edit restored from the store; the
// handlers that write files know how.
type UndoFunc func(ws *tool.Workspace, p tool.Prior) func(current []byte) (tool.FileState, string, error)

// restoreEdits puts the stored edits back in their sessions' histories.
func (c *Coordinator) restoreEdits(undo UndoFunc) error {
	edits, err := c.rec.st.Edits()
	if err != nil {
		return fmt.Errorf("load edits: %w", err)
	}
	for _, ed := range edits {
		s, ok := c.sessions.lookup(ed.SessionID)
		if !ok || undo == nil || c.workspace == nil {
			continue
		}
		p := tool.Prior{ToolUseID: ed.ToolUseID, Path: ed.Path, Existed: ed.Existed, Deleted: ed.Deleted, Content: ed.Content,
			After: tool.FileState{Size: ed.AfterSize, ModTime: ed.AfterModTime}}
		if len(ed.AfterHash) == len(p.After.Hash) {
			copy(p.After.Hash[:], ed.AfterHash)
			p.After.Hashed = true
		}
		p.Undo = undo(c.workspace, p)
		s.Files.RestorePrior(p)
	}
	return nil
}

// edit records an edit's prior content; editGone forgets it.
func (r *recorder) edit(sessionID string, p tool.Prior) {
	e := store.Edit{SessionID: sessionID, ToolUseID: p.ToolUseID, Path: p.Path, Existed: p.Existed, Deleted: p.Deleted, Content: p.Content,
		AfterSize: p.After.Size, AfterModTime: p.After.ModTime, CreatedAt: time.Now().UTC()}
	if p.After.Hashed {
		e.AfterHash = p.After.Hash[:]
	}
	_ = r.apply(store.Queued, store.PutEdit{Edit: e})
}

func (r *recorder) editGone(sessionID, toolUseID string) {
	_ = r.apply(store.Queued, store.DeleteEdit{SessionID: sessionID, ToolUseID: toolUseID})
}
