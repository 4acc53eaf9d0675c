package process

import (
	"bytes"
	"fmt"
	"strings"
)

// SummaryLimits say when output is shortened for a tool_result.
type SummaryLimits struct {
	// Lines and Bytes: output within both is returned whole (defaults 1000
	// lines, 512 KiB). Longer output keeps its first and last Lines/2
	// lines, each part at most Bytes/2.
	Lines int
	Bytes int
	// Hint ends the note that replaces the middle, e.g. where the full
	// output can be fetched.
	Hint string
}

// Summary is the output as a tool_result shows it: whole when it is short,
// else its first and last lines with a note in between saying what was
// left out. Call it after Close.
func (o *Output) Summary(lim SummaryLimits) string {
	if lim.Lines <= 0 {
		lim.Lines = 1000
	}
	if lim.Bytes <= 0 {
		lim.Bytes = 512 << 10
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	lines := o.linesLocked()
	if o.total <= int64(lim.Bytes) && lines <= int64(lim.Lines) && o.total <= int64(len(o.head)) {
		return strings.ToValidUTF8(string(o.head), "\uFFFD")
	}
	head := firstLines(o.head, lim.Lines/2, lim.Bytes/2)
	tail := lastLines(o.tailBytes(), lim.Lines/2, lim.Bytes/2)
	// The two parts must not overlap when the output is only a little
	// over the limits.
	if overlap := int64(len(head)+len(tail)) - o.total; overlap > 0 {
		tail = validSuffix(tail[overlap:])
	}
	omittedBytes := o.total - int64(len(head)+len(tail))
	omittedLines := lines - countLines(head) - countLines(tail)
	var b strings.Builder
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	if omittedLines > 0 {
		fmt.Fprintf(&b, "\n[... %d lines (%s) omitted ...", omittedLines, size(omittedBytes))
	} else { // the middle of one long line
		fmt.Fprintf(&b, "\n[... %s omitted ...", size(omittedBytes))
	}
	if lim.Hint != "" {
		b.WriteString(" " + lim.Hint)
	}
	b.WriteString("]\n\n")
	b.Write(tail)
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// firstLines is the longest prefix of b with at most n lines and max
// bytes, cut at a line end when one is in reach.
func firstLines(b []byte, n, maxBytes int) []byte {
	end := 0
	for i := 0; i < n && end < len(b); i++ {
		j := bytes.IndexByte(b[end:], '\n')
		if j < 0 {
			end = len(b)
			break
		}
		end += j + 1
	}
	if end > maxBytes {
		cut := b[:maxBytes]
		if j := bytes.LastIndexByte(cut, '\n'); j >= 0 {
			return cut[:j+1]
		}
		return validPrefix(cut)
	}
	return b[:end]
}

// lastLines is the longest suffix of b with at most n lines and max bytes,
// starting at a line start when one is in reach.
func lastLines(b []byte, n, maxBytes int) []byte {
	search := len(b)
	if search > 0 && b[search-1] == '\n' {
		search-- // the final newline ends the last line
	}
	start := 0
	for range n {
		j := bytes.LastIndexByte(b[:search], '\n')
		if j < 0 {
			start = 0
			break
		}
		start, search = j+1, j
	}
	if len(b)-start > maxBytes {
		cut := b[len(b)-maxBytes:]
		if j := bytes.IndexByte(cut, '\n'); j >= 0 && j+1 < len(cut) {
			return cut[j+1:]
		}
		return validSuffix(cut)
	}
	return b[start:]
}

func countLines(b []byte) int64 {
	n := int64(bytes.Count(b, []byte{'\n'}))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// Ends is what an Output keeps of itself in memory, for callers that
// shorten it their own way.
type Ends struct {
	// Head is the output's start (all of it when Whole), Tail its last
	// bytes (at least OutputLimits.Tail of them, when that many came).
	Head, Tail []byte
	// Whole says Head holds the whole output.
	Whole bool
	// Total is the output's length, Lines its lines (a last line without
	// a newline included).
	Total, Lines int64
}

// Ends returns the output's kept ends. Call it after Close.
func (o *Output) Ends() Ends {
	o.mu.Lock()
	defer o.mu.Unlock()
	return Ends{Head: bytes.Clone(o.head), Tail: bytes.Clone(o.tailBytes()), Whole: o.total <= int64(len(o.head)),
		Total: o.total, Lines: o.linesLocked()}
}
