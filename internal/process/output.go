package process

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"unicode/utf8"
)

// OutputLimits bound what an Output keeps.
type OutputLimits struct {
	// Memory is how many bytes stay in memory from the start of the
	// output; beyond it the output is spilled to a file (default 512 KiB).
	Memory int
	// Tail is how many of the last bytes stay in memory (default 256 KiB).
	Tail int
	// Full caps the spill file; past it the middle of the output is
	// dropped and the file ends with a note and the tail (default 64 MiB).
	Full int64
	// Dir holds spill files; "" is the system's temporary directory.
	Dir string
	// Area, when set, holds spill files instead of Dir and caps the bytes
	// of all its spills together: past it an output keeps its head and
	// tail only, as past Full.
	Area *SpillArea
}

func (l *OutputLimits) defaults() {
	if l.Memory <= 0 {
		l.Memory = 512 << 10
	}
	if l.Tail <= 0 {
		l.Tail = 256 << 10
	}
	if l.Full <= 0 {
		l.Full = 64 << 20
	}
}

// errSpillCap is why an output past its server's spill cap was not
// spilled.
var errSpillCap = errors.New("the spilled outputs reached their cap")

// Output is a command's combined output, kept with bounded memory. It is
// safe for concurrent use. Once closed it can be read back whole (Open),
// summarized (Summary) and removed (Remove).
type Output struct {
	lim OutputLimits

	mu       sync.Mutex
	head     []byte // the first lim.Memory bytes
	tail     []byte // the last bytes, at least lim.Tail once that many came
	total    int64
	newlines int64
	lastByte byte
	file     *os.File // spill file, once the output outgrew head
	name     string
	fileN    int64
	reserved int64 // bytes of fileN taken from lim.Area
	areaFull bool  // the area's cap, not Full, cut the spill file
	spillErr error
	closed   bool
}

// NewOutput returns an empty Output.
func NewOutput(lim OutputLimits) *Output {
	lim.defaults()
	return &Output{lim: lim}
}

// Write appends p. It never fails: a spill file that cannot be written
// only makes the full output shorter.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || len(p) == 0 {
		return len(p), nil
	}
	o.total += int64(len(p))
	o.newlines += int64(bytes.Count(p, []byte{'\n'}))
	o.lastByte = p[len(p)-1]
	o.appendTail(p)
	rest := p
	if room := o.lim.Memory - len(o.head); room > 0 {
		n := min(room, len(rest))
		o.head = append(o.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		o.spill(rest)
	}
	return len(p), nil
}

// appendTail keeps the last bytes; the buffer holds up to twice the limit
// so that trimming is rare.
func (o *Output) appendTail(p []byte) {
	if len(p) >= o.lim.Tail {
		o.tail = append(o.tail[:0], p[len(p)-o.lim.Tail:]...)
		return
	}
	if len(o.tail)+len(p) > 2*o.lim.Tail {
		keep := o.tail[len(o.tail)-(o.lim.Tail-len(p)):]
		o.tail = append(o.tail[:copy(o.tail, keep)], p...)
		return
	}
	o.tail = append(o.tail, p...)
}

func (o *Output) spill(p []byte) {
	if o.spillErr != nil {
		return
	}
	if o.file == nil {
		dir := o.lim.Dir
		if a := o.lim.Area; a != nil {
			// The file starts with the head: without room for it, the
			// output stays the head in memory.
			dir = a.Dir()
			if take := a.reserve(int64(len(o.head))); take < int64(len(o.head)) {
				a.release(take)
				o.areaFull, o.spillErr = true, errSpillCap
				return
			}
			o.reserved += int64(len(o.head))
		}
		f, err := os.CreateTemp(dir, "toolgate-output-*")
		if err != nil {
			o.spillErr = err
			return
		}
		o.file, o.name = f, f.Name()
		o.writeReserved(o.head)
	}
	if room := o.lim.Full - o.fileN; room > 0 {
		o.write(p[:min(int64(len(p)), room)])
	}
}

// write appends p to the spill file, as much of it as the area's cap
// leaves room for.
func (o *Output) write(p []byte) {
	if a := o.lim.Area; a != nil {
		take := a.reserve(int64(len(p)))
		o.reserved += take
		if take < int64(len(p)) {
			o.areaFull = true
			p = p[:take]
		}
	}
	o.writeReserved(p)
}

// writeReserved appends p, whose room is taken already.
func (o *Output) writeReserved(p []byte) {
	n, err := o.file.Write(p)
	o.fileN += int64(n)
	if err != nil {
		o.spillErr = err
	}
}

// Close ends the output. A spill file that hit its cap gets a note and the
// tail appended, so that the full output keeps both ends.
func (o *Output) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	if o.file == nil {
		return nil
	}
	if dropped := o.total - o.fileN; dropped > 0 && o.spillErr == nil {
		tail := o.tailBytes()
		tail = tail[max(0, int64(len(tail))-(o.total-o.fileN)):]
		if a := o.lim.Area; a != nil {
			take := a.reserve(int64(len(tail)))
			o.reserved += take
			tail = tail[int64(len(tail))-take:]
		}
		capped := "the full output is capped at " + size(o.lim.Full)
		if o.areaFull {
			capped = "the spilled outputs of all calls are capped at " + size(o.lim.Area.max) + " together"
		}
		note := fmt.Sprintf("\n[... %s omitted: %s ...]\n", size(o.total-o.fileN-int64(len(tail))), capped)
		_, _ = o.file.WriteString(note)
		_, _ = o.file.Write(tail)
		o.fileN += int64(len(note) + len(tail))
		if a := o.lim.Area; a != nil {
			// The note is not refused: a few dozen bytes past the cap.
			a.used.Add(int64(len(note)))
			o.reserved += int64(len(note))
		}
	}
	err := o.file.Close()
	o.file = nil
	return err
}

// tailBytes is the kept tail, at most lim.Tail bytes.
func (o *Output) tailBytes() []byte {
	return o.tail[max(0, len(o.tail)-o.lim.Tail):]
}

// Total is how many bytes were written.
func (o *Output) Total() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.total
}

// Lines counts lines, a last line without a newline included.
func (o *Output) Lines() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.linesLocked()
}

func (o *Output) linesLocked() int64 {
	if o.total > 0 && o.lastByte != '\n' {
		return o.newlines + 1
	}
	return o.newlines
}

// Size is the length of what Open reads.
func (o *Output) Size() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.name != "" {
		return o.fileN
	}
	return int64(len(o.head))
}

// Open reads the kept output from its start: the head from memory, or the
// spill file.
func (o *Output) Open() (io.ReadCloser, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.name == "" {
		return io.NopCloser(bytes.NewReader(bytes.Clone(o.head))), nil
	}
	return os.Open(o.name)
}

// Remove deletes the spill file, if any.
func (o *Output) Remove() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.file != nil {
		_ = o.file.Close()
		o.file = nil
	}
	if o.name == "" {
		return nil
	}
	name := o.name
	o.name, o.head, o.tail = "", nil, nil
	if a := o.lim.Area; a != nil {
		a.release(o.reserved)
		o.reserved = 0
	}
	return os.Remove(name)
}

// SpillFile is the spill file's name, "" when the output fit in memory.
func (o *Output) SpillFile() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.name
}

// validPrefix cuts b back to whole UTF-8 runes at its end.
func validPrefix(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		r, size := utf8.DecodeLastRune(b[:len(b)-i])
		if r != utf8.RuneError || size > 1 {
			return b[:len(b)-i]
		}
	}
	return b
}

// validSuffix cuts b forward to the start of a whole UTF-8 rune.
func validSuffix(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// size formats a byte count for people.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
