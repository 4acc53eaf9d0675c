package coordinator

import (
	"hash/maphash"

	"github.com/toolgate/toolgate/api"
)

// maxDroppedIDs bounds how many dropped calls a session remembers: about
// 768 KiB at the most (a hash in the table, at most half full, and in the
// ring each). A repeat of an id dropped longer ago than that runs again.
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
//
// The hashes are an open-addressed table of their own (linear probing,
// at most half full) rather than a Go map: a session at its bounds drops
// a call for every call it takes, and every claim asks the set, so each
// call paid a map lookup, an insert and a delete, mostly cache misses in
// a map of 32,768 entries; a flat table costs one cache line each
// (BenchmarkDroppedIDs, ./coordinator/; docs/benchmarks.md).
type droppedIDs struct {
	slots []uint64 // the table, a power of two long; 0 marks a free slot
	n     int      // hashes in slots
	ring  []uint64 // the hashes added, oldest at next once full
	next  int
}

// droppedKey is id's hash in the table: never 0, which marks a free slot.
func droppedKey(id string) uint64 {
	if h := maphash.String(droppedSeed, id); h != 0 {
		return h
	}
	return 1
}

func (d *droppedIDs) add(id string) {
	h := droppedKey(id)
	if d.slots == nil {
		d.slots = make([]uint64, minDroppedSlots)
	}
	if _, ok := d.find(h); ok {
		return
	}
	if len(d.ring) < maxDroppedIDs {
		d.ring = append(d.ring, h)
	} else {
		d.delete(d.ring[d.next])
		d.ring[d.next] = h
		d.next = (d.next + 1) % maxDroppedIDs
	}
	if 2*(d.n+1) > len(d.slots) {
		d.grow()
	}
	i, _ := d.find(h)
	d.slots[i] = h
	d.n++
}

// remove forgets id, so that it may run again (its ring slot stays until
// it is reused).
func (d *droppedIDs) remove(id string) {
	if d.n > 0 {
		d.delete(droppedKey(id))
	}
}

func (d *droppedIDs) has(id string) bool {
	if d.n == 0 {
		return false
	}
	_, ok := d.find(droppedKey(id))
	return ok
}

// minDroppedSlots is the table's first size: a session that drops a few
// calls holds half a KiB; the table doubles as it fills, up to
// 2*maxDroppedIDs slots.
const minDroppedSlots = 64

// find returns h's slot, or the free slot where its probe ends.
func (d *droppedIDs) find(h uint64) (int, bool) {
	mask := uint64(len(d.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch d.slots[i] {
		case h:
			return int(i), true
		case 0:
			return int(i), false
		}
	}
}

// grow doubles the table.
func (d *droppedIDs) grow() {
	old := d.slots
	d.slots = make([]uint64, 2*len(old))
	for _, h := range old {
		if h != 0 {
			i, _ := d.find(h)
			d.slots[i] = h
		}
	}
}

// delete takes h out of the table, if there, moving back the hashes
// after it that their probe would no longer reach (no tombstones: the
// table never fills up with them).
func (d *droppedIDs) delete(h uint64) {
	i, ok := d.find(h)
	if !ok {
		return
	}
	mask := len(d.slots) - 1
	for j := (i + 1) & mask; d.slots[j] != 0; j = (j + 1) & mask {
		// The hash at j moves to the hole at i unless its home slot
		// lies after i, up to j, on the way round.
		if home := int(d.slots[j]) & mask; (j-home)&mask >= (j-i)&mask {
			d.slots[i] = d.slots[j]
			i = j
		}
	}
	d.slots[i] = 0
	d.n--
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
	e := &callEntry{record: rec, result: res, woken: true}
	s.calls[use.ID] = e
	s.callOrder = append(s.callOrder, use.ID)
	s.evictLocked(e)
	return e
}
