package handlers

import (
	"crypto/sha256"
	"hash"
	"io"
	"io/fs"
	"os"
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
	f *os.File
	// info is what Stat said of f on opening: its size and mtime are
	// remembered with the hash. A file changed while it was read then
	// differs from what is remembered (in size, or in mtime when it is
	// too large to hash) and counts as changed, rather than taking the
	// new state for content that was read before it.
	info fs.FileInfo
	h    hash.Hash
	n    int64 // bytes read and hashed
	eof  bool  // a read has met the end of the file
}

func newStateHasher(f *os.File, info fs.FileInfo) *stateHasher {
	return &stateHasher{f: f, info: info, h: sha256.New()}
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
			copy(st.Hash[:], s.h.Sum(nil))
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
