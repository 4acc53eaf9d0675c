package handlers

import (
	"crypto/sha256"
	"hash"
	"io"
	"io/fs"
	"sync"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// maxHashBytes bounds how much of a file a read hashes beyond what it
// returns: past it the session remembers only size and mtime, so reading a
// window of a huge file stays cheap. Files that large cannot be edited by
// the edit tools anyway.
const maxHashBytes = maxEditBytes

// stateHasher reads a file while hashing every byte read, so that a read
// can record the file's state without a second pass over what it returned.
type stateHasher struct {
	f io.Reader
	// info is what Stat said of f on opening: its size and mtime are
	// remembered with the hash. A file changed while it was read then
	// differs from what is remembered (in size, or in mtime when it is
	// too large to hash) and counts as changed, rather than taking the
	// new state for content that was read before it.
	info fs.FileInfo
	h    hash.Hash
	sum  [sha256.Size]byte // the hash's Sum, made without allocating
	n    int64             // bytes read and hashed
	eof  bool              // a read has met the end of the file
}

// stateHashers recycles hashers with their SHA-256 state: a read made
// three allocations for them (BenchmarkStateHashers, ./handlers/;
// docs/benchmarks.md).
var stateHashers = sync.Pool{New: func() any { return &stateHasher{h: sha256.New()} }}

// newStateHasher returns a hasher reading f, whose Stat on opening said
// info. The caller gives it back with release once it is done with it.
func newStateHasher(f io.Reader, info fs.FileInfo) *stateHasher {
	s := stateHashers.Get().(*stateHasher)
	s.f, s.info = f, info
	return s
}

// release gives s back for another read; s must not be used after.
func (s *stateHasher) release() {
	s.h.Reset()
	s.f, s.info, s.n, s.eof = nil, nil, 0, false
	stateHashers.Put(s)
}

// Read reads f through the hash. A read that reaches the size f had on
// opening ends there, with io.EOF: the answer is the file as it was
// opened, and the read system call that would only have said so is
// spared (BenchmarkReadPipeline, ./handlers/; docs/benchmarks.md). A file
// that grew since is read on to its end; one whose Stat says 0 bytes (a
// kernel file that makes its content when read) is read to its end.
func (s *stateHasher) Read(p []byte) (int, error) {
	if s.eof {
		return 0, io.EOF
	}
	n, err := s.f.Read(p)
	s.h.Write(p[:n])
	s.n += int64(n)
	if err == nil && n > 0 && s.n == s.info.Size() {
		err = io.EOF
	}
	if err == io.EOF {
		s.eof = true
	}
	return n, err
}

// remember records the file's state in the session: the rest of the file
// is hashed if it is small enough, else only size and mtime are kept.
func (s *stateHasher) remember(files tool.Files, rel string) {
	if files == nil {
		return
	}
	info := s.info
	st := tool.FileState{Size: info.Size(), ModTime: info.ModTime()}
	var err error
	if info.Size() <= maxHashBytes {
		if !s.eof || s.n != info.Size() {
			// What the read left of the file; a read that met its end
			// of a file still that long has hashed it all.
			buf := copyBuffers.Get().(*[]byte)
			_, err = io.CopyBuffer(s.h, readerOnly{s.f}, *buf)
			copyBuffers.Put(buf)
		}
		if err == nil {
			st.Hash = [sha256.Size]byte(s.h.Sum(s.sum[:0]))
			st.Hashed = true
		}
	}
	files.Remember(rel, st)
}

// copyBuffers recycles the buffers that hash the rest of a file
// (BenchmarkCopyBuffers, ./handlers/, docs/benchmarks.md).
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readerOnly hides the file's WriterTo, which would allocate its own buffer.
type readerOnly struct{ io.Reader }
