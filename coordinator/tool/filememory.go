package tool

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
)

// FileState is what a session saw of a file: enough to tell later whether
// someone else changed it.
type FileState struct {
	Size    int64
	ModTime time.Time
	// Hash is the SHA-256 of the content; Hashed is false when the file was
	// too large to hash and only size and mtime are known.
	Hash   [sha256.Size]byte
	Hashed bool
}

// StateOf is the state of a file whose whole content is data.
func StateOf(data []byte, modTime time.Time) FileState {
	return FileState{Size: int64(len(data)), ModTime: modTime, Hash: sha256.Sum256(data), Hashed: true}
}

// Same reports whether two states describe the same content. Content
// decides when both are hashed, so a file touched without a change (a
// formatter that rewrote it identically, a checkout) is not "changed";
// otherwise size and mtime are all there is.
func (a FileState) Same(b FileState) bool {
	if a.Hashed && b.Hashed {
		return a.Size == b.Size && a.Hash == b.Hash
	}
	return a.Size == b.Size && a.ModTime.Equal(b.ModTime)
}

// maxSeenFiles bounds how many files one session remembers; past it the
// oldest entries are forgotten (an edit of those is then unguarded, or
// needs a fresh read when reads are required).
const maxSeenFiles = 10000

// FileMemory is a session's memory of the files it read and wrote. It
// guards edits against changes made on disk behind the model's back, and
// keeps the prior contents of recent edits so they can be reverted. A nil
// *FileMemory remembers nothing and guards nothing.
type FileMemory struct {
	requireRead bool

	mu      sync.Mutex
	seen    map[string]seenFile
	seq     uint64
	history *editHistory
	// reads counts the reads of each file, for Cline's duplicate-read
	// notes (readcount.go).
	reads map[string]readCount
	// readTurns are the turns of queued reads not yet counted.
	readTurns map[uint64]readTurn
	turnSeq   uint64
}

type seenFile struct {
	state FileState
	seq   uint64 // recency, for eviction
	// window is the part of the file the last read showed, when that
	// read was the last thing the session did with the file.
	window *ReadWindow
}

// FileMemoryConfig is what governs a session's FileMemory.
type FileMemoryConfig struct {
	// RequireRead refuses edits of existing files the session never read.
	RequireRead bool
	// RevertMaxCount and RevertMaxBytes bound the prior contents kept for
	// reverts; zero means the defaults.
	RevertMaxCount int
	RevertMaxBytes int64
}

// NewFileMemory returns an empty memory governed by cfg's read
// requirement and revert bounds.
func NewFileMemory(cfg FileMemoryConfig) *FileMemory {
	return &FileMemory{
		requireRead: cfg.RequireRead,
		seen:        map[string]seenFile{},
		history:     newEditHistory(cfg.RevertMaxCount, cfg.RevertMaxBytes),
	}
}

// Remember records what the session now knows of a workspace file (rel is
// the cleaned workspace-relative path), after a read or a write.
func (m *FileMemory) Remember(rel string, st FileState) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	m.seen[rel] = seenFile{state: st, seq: m.seq}
	if len(m.seen) > maxSeenFiles {
		m.evictLocked()
	}
}

// evictLocked forgets the oldest tenth of the entries at once, so the sort
// is paid once per many Remembers.
func (m *FileMemory) evictLocked() {
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
func (m *FileMemory) Forget(rel string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.seen, rel)
}

// Seen returns what the session last read or wrote of a file.
func (m *FileMemory) Seen(rel string) (FileState, bool) {
	if m == nil {
		return FileState{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.seen[rel]
	return f.state, ok
}

// CheckFresh refuses an edit of an existing file whose current state cur
// differs from what the session last read or wrote (code file_changed), or
// that was never read when reads are required (code read_required). A file
// that does not exist has nothing to lose and is always allowed.
func (m *FileMemory) CheckFresh(rel string, cur FileState, exists bool) error {
	if m == nil || !exists {
		return nil
	}
	seen, ok := m.Seen(rel)
	switch {
	case !ok && m.requireRead:
		return Errorf(api.ToolCodeReadRequired,
			"%s has not been read in this session; read it with read_file before editing it. No changes were made.", rel)
	case ok && !seen.Same(cur):
		return Errorf(api.ToolCodeFileChanged,
			"%s has changed on disk since it was last read or written in this session (%s). "+
				"No changes were made. Read the file again with read_file, then redo the edit against its current content.",
			rel, DescribeChange(seen, cur))
	}
	return nil
}

// DescribeChange says briefly how a file differs from what was seen.
func DescribeChange(was, now FileState) string {
	if was.Size != now.Size {
		return fmt.Sprintf("size %d -> %d bytes", was.Size, now.Size)
	}
	if !now.ModTime.Equal(was.ModTime) {
		return fmt.Sprintf("same size, modified at %s", now.ModTime.UTC().Format(time.RFC3339))
	}
	return "same size, different content"
}

// KeepPrior stores how to undo one call's edit, within the session's
// revert bounds. It reports false when the prior content alone exceeds the
// byte bound, so the edit cannot be reverted.
func (m *FileMemory) KeepPrior(p Prior) bool {
	if m == nil {
		return false
	}
	return m.history.keep(p)
}

// TakePriors removes and returns the Priors of a call's edits, in the
// order they were kept. A revert takes them before undoing, so two
// concurrent reverts of one call cannot both write.
func (m *FileMemory) TakePriors(toolUseID string) ([]Prior, bool) {
	if m == nil {
		return nil, false
	}
	return m.history.take(toolUseID)
}

// PutBackPriors returns Priors taken by a revert that did not happen.
func (m *FileMemory) PutBackPriors(ps []Prior) {
	if m != nil {
		m.history.putBack(ps)
	}
}

// MirrorEdits has onKeep hear of every Prior kept from now on and onDrop
// of every call whose Priors are dropped (reverted or past the bounds),
// so a store can keep the edit history across restarts.
func (m *FileMemory) MirrorEdits(onKeep func(Prior), onDrop func(toolUseID string)) {
	m.history.onKeep, m.history.onDrop = onKeep, onDrop
}

// RestorePrior puts back a Prior a store kept from before a restart.
func (m *FileMemory) RestorePrior(p Prior) {
	if m != nil {
		m.history.restore(p)
	}
}
