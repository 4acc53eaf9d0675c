package coordinator

import (
	"hash/maphash"

	"github.com/toolgate/toolgate/api"
)

// maxDroppedIDs bounds how many dropped calls a session remembers: about
// 1 MiB at the most (a hash in the set and in the ring each). A repeat of
// an id dropped longer ago than that runs again.
const maxDroppedIDs = 1 << 15

// droppedSeed hashes the ids of every session's dropped calls.
var droppedSeed = maphash.MakeSeed()

// droppedIDs remembers the tool_use ids of calls a session ran and then
// stopped keeping (its max_calls and max_call_bytes bounds), so that a
// repeat of one is answered, from the store or with result_dropped,
// instead of running the call a second time: a client retrying an old
// request must not run a command or an edit twice. Ids are kept as 64-bit
// hashes; two ids colliding among the last 32,768 is about a one in 10^9
// chance.
type droppedIDs struct {
	set  map[uint64]struct{}
	ring []uint64 // the set's hashes, oldest at next once full
	next int
}

func (d *droppedIDs) add(id string) {
	h := maphash.String(droppedSeed, id)
	if _, ok := d.set[h]; ok {
		return
	}
	if d.set == nil {
		d.set = map[uint64]struct{}{}
	}
	if len(d.ring) < maxDroppedIDs {
		d.ring = append(d.ring, h)
	} else {
		delete(d.set, d.ring[d.next])
		d.ring[d.next] = h
		d.next = (d.next + 1) % maxDroppedIDs
	}
	d.set[h] = struct{}{}
}

// remove forgets id, so that it may run again (its ring slot stays until
// it is reused).
func (d *droppedIDs) remove(id string) {
	delete(d.set, maphash.String(droppedSeed, id))
}

func (d *droppedIDs) has(id string) bool {
	if len(d.set) == 0 {
		return false
	}
	_, ok := d.set[maphash.String(droppedSeed, id)]
	return ok
}

// droppedResultText answers a repeat of a dropped call.
const droppedResultText = "This tool_use id already ran in this session, and its result is no longer kept (the session keeps " +
	"its last sessions.max_calls calls and sessions.max_call_bytes of results). The call was not run again; " +
	"send it with a new tool_use id to run it again."

// droppedCallLocked is the finished call that answers a repeat of the
// dropped call id: an error result, not a second run.
func (s *Session) droppedCallLocked(use api.ToolUse, msgID string) *callEntry {
	res := api.NewToolResult(use.ID, droppedResultText, true)
	rec := api.CallRecord{ToolUseID: use.ID, Name: use.Name, MessageID: msgID, State: api.StateDone, Status: api.StatusFailed,
		Error: &api.ErrorDetail{Code: api.ToolCodeResultDropped, Message: droppedResultText}}
	e := &callEntry{record: rec, result: res, done: make(chan struct{})}
	close(e.done)
	s.calls[use.ID] = e
	s.callOrder = append(s.callOrder, use.ID)
	s.evictLocked(e)
	return e
}
