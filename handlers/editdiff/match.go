package editdiff

import "strings"

// Strategy names how a block's SEARCH text was located.
type Strategy string

// The strategies, tried per block in this order.
const (
	// Exact: the lines equal the file's lines, at or after the previous
	// block's match.
	Exact Strategy = "exact"
	// LineTrimmed: equal once each line's surrounding whitespace is
	// trimmed, at or after the previous block's match.
	LineTrimmed Strategy = "line-trimmed"
	// BlockAnchor: a block of three or more lines whose first and last lines
	// equal (trimmed) the file's lines the same distance apart; used only
	// when exactly one such place exists after the previous block's match.
	BlockAnchor Strategy = "block-anchor"
	// OutOfOrder: an exact match before the previous block's match; blocks
	// are then applied in file order.
	OutOfOrder Strategy = "out-of-order"
	// NewFile: an empty SEARCH on an empty file; the REPLACE text is the
	// whole content.
	NewFile Strategy = "new-file"
)

// span is a located block: lines [start, end) of the original file.
type span struct {
	start, end int
	how        Strategy
}

// locate finds search in lines, trying the strategies in their order.
func locate(lines, search []string, from int) (span, bool) {
	n := len(search)
	if at := scan(lines, search, from, len(lines), equal); at >= 0 {
		return span{at, at + n, Exact}, true
	}
	if at := scan(lines, search, from, len(lines), trimmedEqual); at >= 0 {
		return span{at, at + n, LineTrimmed}, true
	}
	if at := anchor(lines, search, from); at >= 0 {
		return span{at, at + n, BlockAnchor}, true
	}
	if at := scan(lines, search, 0, min(from, len(lines)), equal); at >= 0 {
		return span{at, at + n, OutOfOrder}, true
	}
	return span{}, false
}

func equal(a, b string) bool        { return a == b }
func trimmedEqual(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }

// scan returns the first index in [from, to) where search starts and every
// line matches by eq, or -1.
func scan(lines, search []string, from, to int, eq func(a, b string) bool) int {
	n := len(search)
	for i := from; i < to && i+n <= len(lines); i++ {
		ok := true
		for k := range n {
			if !eq(lines[i+k], search[k]) {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

// anchor finds the single place at or after from where the block's first
// and last lines match. Ambiguity is a miss: picking one of several places
// by position alone would edit code the model may not have meant.
func anchor(lines, search []string, from int) int {
	n := len(search)
	if n < 3 {
		return -1
	}
	first, last := strings.TrimSpace(search[0]), strings.TrimSpace(search[n-1])
	if first == "" || last == "" {
		return -1
	}
	found := -1
	for i := from; i+n <= len(lines); i++ {
		if strings.TrimSpace(lines[i]) == first && strings.TrimSpace(lines[i+n-1]) == last {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}
