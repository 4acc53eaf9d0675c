package filememory

import (
	"slices"
	"sync"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// Default revert bounds per session.
const (
	DefaultRevertMaxCount = 100
	DefaultRevertMaxBytes = 64 << 20
)

// editHistory keeps the Priors of a session's most recent edit calls, the
// oldest call dropped first once the count of calls or the byte total is
// exceeded. A call that wrote several files (apply_patch) keeps one Prior
// per file, reverted together.
type editHistory struct {
	maxCount int
	maxBytes int64

	// onKeep and onDrop, when set, hear of every Prior kept and every call
	// whose Priors are dropped, so the store mirrors the history.
	onKeep func(tool.Prior)
	onDrop func(toolUseID string)

	mu    sync.Mutex
	byID  map[string][]tool.Prior
	order []string
	bytes int64
}

func groupBytes(ps []tool.Prior) int64 {
	var n int64
	for _, p := range ps {
		n += int64(len(p.Content))
	}
	return n
}

func newEditHistory(maxCount int, maxBytes int64) *editHistory {
	if maxCount <= 0 {
		maxCount = DefaultRevertMaxCount
	}
	if maxBytes <= 0 {
		maxBytes = DefaultRevertMaxBytes
	}
	return &editHistory{maxCount: maxCount, maxBytes: maxBytes, byID: map[string][]tool.Prior{}}
}

// keep adds a Prior to its call's group. A Prior for a path the group
// already holds replaces it, so a call retried on the same file keeps one
// undo. It reports false when the group would exceed the byte bound alone.
func (h *editHistory) keep(p tool.Prior) bool {
	dropped, ok := h.add(p)
	if ok {
		h.kept(p)
	} else {
		dropped = append(dropped, p.ToolUseID)
	}
	h.dropped(dropped)
	return ok
}

// restore puts back a Prior the store kept, without writing it again.
func (h *editHistory) restore(p tool.Prior) { h.add(p) }

func (h *editHistory) kept(ps ...tool.Prior) {
	if h.onKeep != nil {
		for _, p := range ps {
			h.onKeep(p)
		}
	}
}

func (h *editHistory) dropped(ids []string) {
	if h.onDrop != nil {
		for _, id := range ids {
			h.onDrop(id)
		}
	}
}

// add is keep without telling the store; it returns the calls whose
// Priors it pushed out.
func (h *editHistory) add(p tool.Prior) ([]string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	group := h.byID[p.ToolUseID]
	if _, ok := h.byID[p.ToolUseID]; ok {
		h.bytes -= groupBytes(group)
		h.removeOrderLocked(p.ToolUseID)
	}
	group = slices.DeleteFunc(slices.Clone(group), func(q tool.Prior) bool { return q.Path == p.Path })
	group = append(group, p)
	if groupBytes(group) > h.maxBytes {
		// A call's files are reverted together or not at all.
		delete(h.byID, p.ToolUseID)
		return nil, false
	}
	return h.putLocked(p.ToolUseID, group), true
}

// putLocked stores a call's group and returns the calls pushed out.
func (h *editHistory) putLocked(id string, group []tool.Prior) (dropped []string) {
	h.byID[id] = group
	h.order = append(h.order, id)
	h.bytes += groupBytes(group)
	for len(h.order) > h.maxCount || h.bytes > h.maxBytes {
		oldest := h.order[0]
		h.order = h.order[1:]
		h.bytes -= groupBytes(h.byID[oldest])
		delete(h.byID, oldest)
		dropped = append(dropped, oldest)
	}
	return dropped
}

// take removes and returns a call's Priors. A revert takes them before
// undoing, so two concurrent reverts of one call cannot both write.
func (h *editHistory) take(id string) ([]tool.Prior, bool) {
	h.mu.Lock()
	ps, ok := h.byID[id]
	if ok {
		delete(h.byID, id)
		h.removeOrderLocked(id)
		h.bytes -= groupBytes(ps)
	}
	h.mu.Unlock()
	if ok {
		h.dropped([]string{id})
	}
	return ps, ok
}

// putBack returns Priors taken by a revert that was refused.
func (h *editHistory) putBack(ps []tool.Prior) {
	if len(ps) == 0 {
		return
	}
	h.mu.Lock()
	dropped := h.putLocked(ps[0].ToolUseID, ps)
	h.mu.Unlock()
	h.kept(ps...)
	h.dropped(dropped)
}

func (h *editHistory) removeOrderLocked(id string) {
	for i, v := range h.order {
		if v == id {
			h.order = append(h.order[:i:i], h.order[i+1:]...)
			return
		}
	}
}
