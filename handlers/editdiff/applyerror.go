package editdiff

import (
	"fmt"
	"strings"
)

// ApplyError reports a well-formed block that could not be applied. When it
// is returned no block was applied.
type ApplyError struct {
	Block       int    // 1-based index of the failing block
	Total       int    // number of blocks in the diff
	Reason      string // why the block failed, phrased for the model to fix
	Search      string // the block's SEARCH text, lines joined by "\n"
	Closest     string // the most similar region of the file, numbered lines; "" if none
	ClosestLine int    // 1-based first line of Closest; 0 if none
}

// maxShownLines bounds how much SEARCH and file text an error repeats.
const maxShownLines = 40

// Error is a message a model can act on: which block, why, what it sent and
// what the file holds nearby.
func (e *ApplyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "SEARCH/REPLACE block %d of %d failed: %s. No changes were made; none of the blocks were applied.", e.Block, e.Total, e.Reason)
	if e.Search != "" {
		fmt.Fprintf(&b, "\nThe SEARCH text of block %d was:\n%s", e.Block, headLines(e.Search, maxShownLines))
	}
	if e.Closest != "" {
		fmt.Fprintf(&b, "\nThe most similar region of the file, starting at line %d:\n%s", e.ClosestLine, e.Closest)
	}
	b.WriteString("\nCorrect that block so its SEARCH lines match the file exactly, whitespace included, and send the whole diff again.")
	return b.String()
}

// notFound builds the error for a block none of the strategies located.
func notFound(ft fileText, blocks []block, i int) *ApplyError {
	e := &ApplyError{Block: i + 1, Total: len(blocks), Search: strings.Join(blocks[i].search, "\n")}
	switch {
	case len(ft.lines) == 0:
		e.Reason = "the file is empty, so no SEARCH text can match; use an empty SEARCH section to write a new file"
	default:
		e.Reason = "its SEARCH text does not match the file (tried exact lines, lines with surrounding whitespace trimmed, " +
			"matching first and last lines, and for out-of-order blocks exact lines earlier in the file)"
		e.ClosestLine, e.Closest = closest(ft.lines, blocks[i].search)
	}
	return e
}

// closest finds the window of the file most like search, scoring each
// window by per-line similarity. It returns the 1-based start line and the
// window with line numbers, or 0 and "" when nothing is even loosely similar.
func closest(lines, search []string) (int, string) {
	n := min(len(search), len(lines))
	scored := min(n, maxShownLines) // bounds the work on very long blocks
	best, bestAt := 0.0, -1
	for at := 0; at+n <= len(lines); at++ {
		s := 0.0
		for k := range scored {
			s += similarity(strings.TrimSpace(lines[at+k]), strings.TrimSpace(search[k]))
		}
		if s > best {
			best, bestAt = s, at
		}
	}
	if bestAt < 0 || best < 0.3*float64(scored) {
		return 0, ""
	}
	var b strings.Builder
	end := min(bestAt+n, bestAt+maxShownLines)
	for k := bestAt; k < end; k++ {
		fmt.Fprintf(&b, "%d | %s\n", k+1, lines[k])
	}
	if end < bestAt+n {
		fmt.Fprintf(&b, "… (%d more lines)\n", bestAt+n-end)
	}
	return bestAt + 1, strings.TrimSuffix(b.String(), "\n")
}

// similarity is a cheap 0..1 line likeness: the share of the longer line
// covered by the common prefix and suffix. It is linear in line length, so
// scoring every window of a large file stays fast, and it rewards the usual
// near miss (one changed word, different indentation already trimmed).
func similarity(a, b string) float64 {
	if a == b {
		if a == "" {
			return 0.5 // blank lines say little about where a block belongs
		}
		return 1
	}
	long := max(len(a), len(b))
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return float64(p+s) / float64(long)
}

// headLines returns the first n lines of s and a note of how many were cut.
func headLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}
