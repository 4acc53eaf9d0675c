package filememory

import (
	"slices"
	"sync"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// maxSeenFiles bounds how many files one session remembers; past it the
// oldest entries are forgotten (an edit of those is then unguarded, or
// needs a fresh read when reads are required).
const maxSeenFiles = 10000

// Memory is a session's memory of the files it read and wrote (the tool
// contract's Files). It guards edits against changes made on disk behind
// the model's back, and keeps the prior contents of recent edits so they
// can be reverted. A nil *Memory remembers nothing and guards nothing.
type Memory struct {
	requireRead bool

	mu sync.Mutex
	// seen holds pointers: a map's first group has room for eight
	// entries, and a session mostly knows a few files, so small slots
	// keep an idle session's memory small (BenchmarkManySessionsMemory).
	seen    map[string]*seenFile
	seq     uint64
	history *editHistory
	// reads counts the reads of each file, for Cline's duplicate-read
	// notes (readcount.go); by pointer, as seen.
	reads map[string]*readCount
	// readTurns are the turns of queued reads not yet counted, in the
	// order they were queued; they start in firstTurn, so a read queued
	// while no other is pending allocates nothing (BenchmarkReadTurns,
	// ./coordinator/filememory/; docs/benchmarks.md).
	readTurns []readTurn
	firstTurn [1]readTurn
	turnSeq   uint64
}

type seenFile struct {
	state tool.FileState
	seq   uint64 // recency, for eviction
	// window is the part of the file the last read showed, when that
	// read was the last thing the session did with the file.
	window *tool.ReadWindow
}

// A Memory is the Files a call carries.
var _ tool.Files = (*Memory)(nil)

// Config is what governs a session's Memory.
type Config struct {
	// RequireRead refuses edits of existing files the session never read.
	RequireRead bool
	// RevertMaxCount and RevertMaxBytes bound the prior contents kept for
	// reverts; zero means the defaults.
	RevertMaxCount int
	RevertMaxBytes int64
}

// New returns an empty memory governed by cfg's read requirement and
// revert bounds.
func New(cfg Config) *Memory {
	return &Memory{
		requireRead: cfg.RequireRead,
		seen:        map[string]*seenFile{},
		history:     newEditHistory(cfg.RevertMaxCount, cfg.RevertMaxBytes),
	}
}

// Remember records what the session now knows of a workspace file (rel is
// the cleaned workspace-relative path), after a read or a write.
func (m *Memory) Remember(rel string, st tool.FileState) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	if f, ok := m.seen[rel]; ok {
		*f = seenFile{state: st, seq: m.seq}
		return
	}
	m.seen[rel] = &seenFile{state: st, seq: m.seq}
	if len(m.seen) > maxSeenFiles {
		m.evictLocked()
	}
}

// evictLocked forgets the oldest tenth of the entries at once, so the sort
// is paid once per many Remembers.
func (m *Memory) evictLocked() {
	seqs := make([]uint64, 0, len(m.seen))
	for _, v := range m.seen {
		seqs = append(seqs, v.seq)
	}
	slices.Sort(seqs)
	cut := seqs[len(seqs)/10]
	for k, v := range m.seen {
		if v.seq < cut {
			delete(m.seen, k)
		}
	}
}

// Forget drops what the session knew of a file (it no longer exists).
func (m *Memory) Forget(rel string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.seen, rel)
}

// Seen returns what the session last read or wrote of a file.
func (m *Memory) Seen(rel string) (tool.FileState, bool) {
	if m == nil {
		return tool.FileState{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.seen[rel]; ok {
		return f.state, true
	}
	return tool.FileState{}, false
}

// CheckFresh refuses an edit of an existing file whose current state cur
// differs from what the session last read or wrote (code file_changed), or
// that was never read when reads are required (code read_required). A file
// that does not exist has nothing to lose and is always allowed.
func (m *Memory) CheckFresh(rel string, cur tool.FileState, exists bool) error {
	if m == nil || !exists {
		return nil
	}
	seen, ok := m.Seen(rel)
	switch {
	case !ok && m.requireRead:
		return tool.Errorf(api.ToolCodeReadRequired,
			"%s has not been read in this session; read it with read_file before editing it. No changes were made.", rel)
	case ok && !seen.Same(cur):
		return tool.Errorf(api.ToolCodeFileChanged,
			"%s has changed on disk since it was last read or written in this session (%s). "+
				"No changes were made. Read the file again with read_file, then redo the edit against its current content.",
			rel, tool.DescribeChange(seen, cur))
	}
	return nil
}

// KeepPrior stores how to undo one call's edit, within the session's
// revert bounds. It reports false when the prior content alone exceeds the
// byte bound, so the edit cannot be reverted.
func (m *Memory) KeepPrior(p tool.Prior) bool {
	if m == nil {
		return false
	}
	return m.history.keep(p)
}

// TakePriors removes and returns the Priors of a call's edits, in the
// order they were kept. A revert takes them before undoing, so two
// concurrent reverts of one call cannot both write.
func (m *Memory) TakePriors(toolUseID string) ([]tool.Prior, bool) {
	if m == nil {
		return nil, false
	}
	return m.history.take(toolUseID)
}

// PutBackPriors returns Priors taken by a revert that did not happen.
func (m *Memory) PutBackPriors(ps []tool.Prior) {
	if m != nil {
		m.history.putBack(ps)
	}
}

// MirrorEdits has onKeep hear of every Prior kept from now on and onDrop
// of every call whose Priors are dropped (reverted or past the bounds),
// so a store can keep the edit history across restarts.
func (m *Memory) MirrorEdits(onKeep func(tool.Prior), onDrop func(toolUseID string)) {
	m.history.onKeep, m.history.onDrop = onKeep, onDrop
}

// RestorePrior puts back a Prior a store kept from before a restart.
func (m *Memory) RestorePrior(p tool.Prior) {
	if m != nil {
		m.history.restore(p)
	}
}
