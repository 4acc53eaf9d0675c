package tool

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"
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
	// Deleted is true when the call removed the file; a revert then needs
	// the path still free and writes Content back.
	Deleted bool
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

// ReadWindow is the part of a file a read showed and the file's
// modification time then: a read of the same window of a file whose
// mtime has not moved may be answered "unchanged" instead of repeating
// the lines, as Claude Code's Read answers it.
type ReadWindow struct {
	Offset, Limit int
	ModTime       time.Time
}

// Same reports whether w is the window o of the file at the same mtime,
// to the millisecond, as Claude Code compares them.
func (w ReadWindow) Same(o ReadWindow) bool {
	return w.Offset == o.Offset && w.Limit == o.Limit && w.ModTime.UnixMilli() == o.ModTime.UnixMilli()
}

// Files is a session's memory of the files it read and wrote, as a
// handler uses it (the coordinator keeps one per session,
// coordinator/filememory.Memory): what a read saw, so that an edit of a
// file changed on disk behind the model's back is refused; the prior
// content of an edit, so that it can be reverted; and the read counts
// and windows behind the dialects' repeated-read answers.
type Files interface {
	// Remember records what the session now knows of a workspace file
	// (rel is the cleaned workspace-relative path), after a read or a
	// write.
	Remember(rel string, st FileState)
	// Forget drops what the session knew of a file (it no longer exists).
	Forget(rel string)
	// Seen returns what the session last read or wrote of a file.
	Seen(rel string) (FileState, bool)
	// CheckFresh refuses an edit of an existing file whose current state
	// cur differs from what the session last read or wrote (code
	// file_changed), or that was never read when reads are required
	// (code read_required).
	CheckFresh(rel string, cur FileState, exists bool) error
	// KeepPrior stores how to undo one call's edit; false when it cannot
	// be kept within the session's revert bounds.
	KeepPrior(p Prior) bool
	// CountRead records a successful read of the file key (its mtime
	// then) in the call's read turn and returns how often it was read
	// unchanged.
	CountRead(ctx context.Context, turn uint64, key string, mtime time.Time) int
	// ForgetRead starts a file's read count over; ForgetReads every one.
	ForgetRead(key string)
	ForgetReads()
	// RememberWindow records the window a read of rel just showed;
	// ReadBefore reports whether the session's last dealing with rel was
	// a read of that window, the file's mtime unchanged since.
	RememberWindow(rel string, w ReadWindow)
	ReadBefore(rel string, w ReadWindow) bool
}
