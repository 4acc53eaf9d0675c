package search

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// Line is one line of search output: a match or a line of context around one.
type Line struct {
	Number int    // 1-based line number
	Text   string // without the line terminator
	Match  bool   // false for context lines
}

const (
	// rgBufferSize is ripgrep's read buffer; its binary detection looks at
	// one buffer fill at a time, which decides what it reports.
	rgBufferSize = 64 << 10
	// chunkSize bounds the memory one file costs (a read buffer per worker
	// holds it); larger files are read in pieces of whole lines.
	chunkSize = 1 << 20
)

// fileScan accumulates one file's output lines across chunks.
type fileScan struct {
	m       *matcher
	lines   []Line
	matches int
	// prev is the last line of the previous chunk, kept as before-context.
	prev      Line
	havePrev  bool
	prevShown bool
	// wantAfter says the previous chunk ended on a match that still needs
	// its after-context line.
	wantAfter bool
	base      int // line number of the chunk's first line
	// whole says the chunk is the whole file: nothing carries over.
	whole bool
}

func (s *fileScan) add(l Line) {
	if l.Match {
		s.matches++
	}
	s.lines = append(s.lines, l)
}

// chunk scans buf, which holds only whole lines (the last one may lack its
// terminator only at end of file).
func (s *fileScan) chunk(buf []byte) {
	lineNo, counted := s.base, 0
	lastEnd := -1 // end offset of the last line emitted in this chunk
	first := true
	s.m.matchLines(buf, func(start, end int) {
		lineNo += bytes.Count(buf[counted:start], []byte{'\n'})
		counted = start
		if first && s.wantAfter && start > 0 {
			e := lineEnd(buf, 0)
			s.add(Line{Number: s.base, Text: string(buf[:e])})
			lastEnd = e
		}
		switch {
		case start == 0 && s.havePrev && !s.prevShown:
			s.add(s.prev)
		case start > 0 && lastEnd < start-1:
			ps := bytes.LastIndexByte(buf[:start-1], '\n') + 1
			s.add(Line{Number: lineNo - 1, Text: string(buf[ps : start-1])})
		}
		first = false
		s.add(Line{Number: lineNo, Text: string(buf[start:end]), Match: true})
		lastEnd = end
		if end+1 < len(buf) {
			// after-context, unless the next line is itself a match; that
			// case is undone when the match arrives.
			ne := lineEnd(buf, end+1)
			s.add(Line{Number: lineNo + 1, Text: string(buf[end+1 : ne])})
			lastEnd = ne
		}
	})
	if first && s.wantAfter && len(buf) > 0 {
		e := lineEnd(buf, 0)
		s.add(Line{Number: s.base, Text: string(buf[:e])})
	}
	if !s.whole {
		s.finishChunk(buf, lastEnd)
	}
}

// finishChunk remembers the chunk's last line for the next chunk.
func (s *fileScan) finishChunk(buf []byte, lastEnd int) {
	total := bytes.Count(buf, []byte{'\n'})
	if len(buf) == 0 {
		return
	}
	body := buf
	if body[len(body)-1] == '\n' {
		body = body[:len(body)-1]
	}
	ls := bytes.LastIndexByte(body, '\n') + 1
	last := len(s.lines) - 1
	s.wantAfter = last >= 0 && s.lines[last].Match && s.lines[last].Number == s.base+total-1
	s.prev = Line{Number: s.base + total - 1, Text: string(body[ls:])}
	s.havePrev = true
	s.prevShown = lastEnd >= len(body)
	s.base += total
}

// dedupe drops context lines that a later match overtook: a line emitted as
// after-context that is itself a match appears twice, once as each.
func dedupe(lines []Line) []Line {
	out := lines[:0]
	for _, l := range lines {
		if n := len(out); n > 0 && out[n-1].Number == l.Number {
			if l.Match {
				out[n-1] = l
			}
			continue
		}
		out = append(out, l)
	}
	return out
}

// rgCut returns how much of a whole file ripgrep would search, emulating its
// buffer-at-a-time binary detection: a NUL in the first buffer fill skips the
// file, and a later NUL stops the search before the fill that holds it.
func rgCut(buf []byte) int {
	nul := bytes.IndexByte(buf, 0)
	if nul < 0 {
		return len(buf)
	}
	start, capacity := 0, rgBufferSize
	for {
		readEnd := min(start+capacity, len(buf))
		if nul < readEnd {
			return start
		}
		nl := bytes.LastIndexByte(buf[start:readEnd], '\n')
		if nl < 0 {
			capacity *= 2 // a line longer than the buffer: ripgrep grows it
			continue
		}
		start += nl + 1
	}
}

// readBuffers keeps the workers' read buffers from one search to the next:
// a buffer grows to the largest file a worker read (a chunk, 1 MiB, for
// larger ones), and making it again each search cost page faults and
// collections (BenchmarkSearchGoTree; docs/benchmarks.md). Buffers that
// grew past maxPooledRead for a file of very long lines are dropped.
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledRead = 4 << 20

func getReadBuffer() *[]byte { return readBuffers.Get().(*[]byte) }

func putReadBuffer(b *[]byte) {
	if cap(*b) <= maxPooledRead {
		readBuffers.Put(b)
	}
}

// scanReader reads a file of the given size with buf as scratch space and
// returns its output lines; ok is false for a binary file with no output.
func scanReader(r io.Reader, size int64, m *matcher, scratch *[]byte) (lines []Line, matches int, err error) {
	s := &fileScan{m: m, base: 1}
	if size+1 <= chunkSize {
		buf, err := readWhole(r, size, scratch)
		if err != nil {
			return nil, 0, err
		}
		lines, matches := scanWhole(buf, m)
		return lines, matches, nil
	}
	err = scanChunks(r, s, scratch)
	return dedupe(s.lines), s.matches, err
}

// scanWhole searches a whole file's content (as ripgrep would, up to its
// binary cut).
func scanWhole(buf []byte, m *matcher) ([]Line, int) {
	s := &fileScan{m: m, base: 1, whole: true}
	s.chunk(buf[:rgCut(buf)])
	return dedupe(s.lines), s.matches
}

func readWhole(r io.Reader, size int64, scratch *[]byte) ([]byte, error) {
	need := int(size) + 1 // one spare byte detects growth since the stat
	if cap(*scratch) < need {
		*scratch = make([]byte, need+need/4)
	}
	buf := (*scratch)[:cap(*scratch)]
	n := 0
	for {
		k, err := r.Read(buf[n:])
		n += k
		if errors.Is(err, io.EOF) || (err == nil && k == 0) {
			return buf[:n], nil
		}
		if err != nil {
			return nil, err
		}
		if n == int(size) && n < len(buf) {
			// All the stat promised, in fewer bytes than asked for: a
			// regular file's read stops short only at its end, so the
			// read that would return 0 is saved (one system call in five
			// per file). A file grown since the stat fills the buffer.
			return buf[:n], nil
		}
		if n == len(buf) {
			buf = append(buf, 0)[:n] // grew since stat: keep reading
			buf = buf[:cap(buf)]
			*scratch = buf
		}
	}
}

// scanChunks handles files above chunkSize: whole lines a chunk at a time.
// A NUL stops the search at the chunk that holds it, or skips the file when
// it falls in ripgrep's first buffer.
func scanChunks(r io.Reader, s *fileScan, scratch *[]byte) error {
	if cap(*scratch) < chunkSize {
		*scratch = make([]byte, chunkSize)
	}
	buf := (*scratch)[:chunkSize]
	carry, offset := 0, 0
	for {
		n, err := io.ReadFull(r, buf[carry:])
		data := buf[:carry+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return err
		}
		if nul := bytes.IndexByte(data[carry:], 0); nul >= 0 {
			if offset+carry+nul < rgBufferSize {
				s.lines, s.matches = nil, 0
			}
			return nil
		}
		cut := len(data)
		if !eof {
			cut = bytes.LastIndexByte(data, '\n') + 1
			if cut == 0 {
				buf = append(buf, make([]byte, len(buf))...) // one long line: grow
				*scratch = buf
				carry = len(data)
				continue
			}
		}
		s.chunk(data[:cut])
		if eof {
			return nil
		}
		carry = copy(buf, data[cut:])
		offset += cut
	}
}
