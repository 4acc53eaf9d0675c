package handlers

import "sync"

// firstChunk follows a command's writes (process.Options.OnBytes) to find
// where its first chunk ends, which a dialect's texts may shape output by
// (tool.Texts.CommandOutput): the output up to its first change of stream
// (stdout to stderr or back), so that a command's result does not depend
// on how fast a reader was.
type firstChunk struct {
	mu     sync.Mutex
	stream string
	n      int64
	done   bool
}

func (f *firstChunk) add(stream string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.done:
	case f.stream != "" && stream != f.stream:
		f.done = true
	default:
		f.stream = stream
		f.n += int64(n)
	}
}

func (f *firstChunk) size() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}
