package coordinator

import "sync"

// Prior is what a file held before one call edited it, and how to put it
// back. The handler that wrote the file builds it, so the coordinator needs
// no knowledge of how files are written.
type Prior struct {
	ToolUseID string
	// Path is the cleaned workspace-relative path the call wrote.
	Path string
	// Existed is false when the call created the file; undoing then
	// removes it.
	Existed bool
	// Content is the file's content before the call (nil when !Existed).
	Content []byte
	// After is the state the call left the file in; a revert is refused
	// once the file no longer matches it.
	After FileState
	// Undo restores Content (or removes the file). current is the file's
	// content now, already checked to match After. It returns the state the
	// file is left in and a unified diff of the restore for the client.
	Undo func(current []byte) (FileState, string, error)
}

// Default revert bounds per session.
const (
	defaultRevertMaxCount = 100
	defaultRevertMaxBytes = 64 << 20
)

// editHistory keeps the most recent Priors of a session, oldest dropped
// first once the count or the byte total is exceeded.
type editHistory struct {
	maxCount int
	maxBytes int64

	// onKeep and onDrop, when set, hear of every edit kept and dropped,
	// so the store mirrors the history.
	onKeep func(Prior)
	onDrop func(toolUseID string)

	mu    sync.Mutex
	byID  map[string]Prior
	order []string
	bytes int64
}

func newEditHistory(maxCount int, maxBytes int64) *editHistory {
	if maxCount <= 0 {
		maxCount = defaultRevertMaxCount
	}
	if maxBytes <= 0 {
		maxBytes = defaultRevertMaxBytes
	}
	return &editHistory{maxCount: maxCount, maxBytes: maxBytes, byID: map[string]Prior{}}
}

func (h *editHistory) keep(p Prior) bool {
	dropped, ok := h.add(p)
	if ok && h.onKeep != nil {
		h.onKeep(p)
	}
	if h.onDrop != nil {
		for _, id := range dropped {
			h.onDrop(id)
		}
	}
	return ok
}

// restore puts back an edit the store kept, without writing it again.
func (h *editHistory) restore(p Prior) { h.add(p) }

// add keeps p and returns the ids of the edits it pushed out.
func (h *editHistory) add(p Prior) (dropped []string, ok bool) {
	size := int64(len(p.Content))
	if size > h.maxBytes {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.byID[p.ToolUseID]; ok {
		h.bytes -= int64(len(old.Content))
		h.removeOrderLocked(p.ToolUseID)
	}
	h.byID[p.ToolUseID] = p
	h.order = append(h.order, p.ToolUseID)
	h.bytes += size
	for len(h.order) > h.maxCount || h.bytes > h.maxBytes {
		oldest := h.order[0]
		h.order = h.order[1:]
		h.bytes -= int64(len(h.byID[oldest].Content))
		delete(h.byID, oldest)
		dropped = append(dropped, oldest)
	}
	return dropped, true
}

// take removes and returns a call's Prior. A revert takes it before
// undoing, so two concurrent reverts of one call cannot both write.
func (h *editHistory) take(id string) (Prior, bool) {
	h.mu.Lock()
	p, ok := h.byID[id]
	if ok {
		delete(h.byID, id)
		h.removeOrderLocked(id)
		h.bytes -= int64(len(p.Content))
	}
	h.mu.Unlock()
	if ok && h.onDrop != nil {
		h.onDrop(id)
	}
	return p, ok
}

// putBack returns a Prior taken by a revert that was refused.
func (h *editHistory) putBack(p Prior) { h.keep(p) }

func (h *editHistory) removeOrderLocked(id string) {
	for i, v := range h.order {
		if v == id {
			h.order = append(h.order[:i:i], h.order[i+1:]...)
			return
		}
	}
}
