package editdiff

import (
	"fmt"
	"strings"
)

// block is one parsed SEARCH/REPLACE pair. Lines carry no terminators.
type block struct {
	search  []string
	replace []string
	line    int // 1-based diff line of the SEARCH marker, for messages
}

type markerKind int

const (
	notMarker markerKind = iota
	searchMarker
	separatorMarker
	replaceMarker
)

// classify recognises a marker line. Lengths of three or more are accepted
// because models miscount the dashes; legacy git-conflict style markers are
// accepted because older prompts taught them. Trailing blanks are ignored,
// leading ones are not: an indented marker is more likely file content.
func classify(line string) markerKind {
	l := strings.TrimRight(line, " \t")
	switch {
	case l == "":
		return notMarker
	case isRun(l, '=', ""):
		return separatorMarker
	case isRun(l, '-', " SEARCH"), isRun(l, '<', " SEARCH"),
		isRun(l, '-', " SEARCH>"), isRun(l, '<', " SEARCH>"):
		return searchMarker
	case isRun(l, '+', " REPLACE"), isRun(l, '>', " REPLACE"),
		isRun(l, '+', " REPLACE>"), isRun(l, '>', " REPLACE>"):
		return replaceMarker
	}
	return notMarker
}

// isRun reports whether l is three or more c followed by exactly suffix.
func isRun(l string, c byte, suffix string) bool {
	head, ok := strings.CutSuffix(l, suffix)
	if !ok || len(head) < 3 {
		return false
	}
	return strings.Trim(head, string(c)) == ""
}

// ParseError reports a diff that is not well-formed SEARCH/REPLACE text.
// Nothing is applied when it is returned.
type ParseError struct {
	Line   int    // 1-based line of the diff where the problem was seen
	Block  int    // 1-based block the line belongs to; 0 when outside any block
	Reason string // what is wrong, phrased for the model to fix
}

// Error tells the model what is malformed and shows the expected shape.
func (e *ParseError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.Block > 0 {
		where += fmt.Sprintf(" (block %d)", e.Block)
	}
	return fmt.Sprintf("malformed SEARCH/REPLACE diff at %s: %s. No changes were made. "+
		"Each block must be exactly:\n------- SEARCH\n[exact lines from the file]\n=======\n[new lines]\n+++++++ REPLACE",
		where, e.Reason)
}

// parse splits a diff into blocks. It is strict about structure because a
// guessed structure could apply an edit the model did not mean.
func parse(diff string) ([]block, error) {
	lines := diffLines(diff)
	const (
		outside = iota
		inSearch
		inReplace
	)
	var blocks []block
	var cur block
	state := outside
	fail := func(i int, format string, args ...any) error {
		n := 0
		if state != outside {
			n = len(blocks) + 1
		}
		return &ParseError{Line: i + 1, Block: n, Reason: fmt.Sprintf(format, args...)}
	}
	for i, ln := range lines {
		kind := classify(ln)
		switch {
		case state == outside && kind == searchMarker:
			cur, state = block{line: i + 1}, inSearch
		case state == outside && kind == separatorMarker:
			return nil, fail(i, "found ======= outside a block; a block starts with ------- SEARCH")
		case state == outside && kind == replaceMarker:
			return nil, fail(i, "found +++++++ REPLACE before any ------- SEARCH")
		case state == outside:
			if strings.TrimSpace(ln) != "" {
				return nil, fail(i, "text outside a SEARCH/REPLACE block: %q; put nothing between blocks", clip(ln, 80))
			}
		case state == inSearch && kind == searchMarker:
			return nil, fail(i, "a second SEARCH marker before the ======= separator")
		case state == inSearch && kind == replaceMarker:
			return nil, fail(i, "+++++++ REPLACE before the ======= separator; the block has no =======")
		case state == inSearch && kind == separatorMarker:
			state = inReplace
		case state == inSearch:
			cur.search = append(cur.search, ln)
		case kind == searchMarker:
			return nil, fail(i, "a new SEARCH marker before this block's +++++++ REPLACE")
		case kind == separatorMarker:
			return nil, fail(i, "a second ======= separator; a block has exactly one")
		case kind == replaceMarker:
			blocks, state = append(blocks, cur), outside
		default:
			cur.replace = append(cur.replace, ln)
		}
	}
	switch {
	case state == inSearch:
		return nil, fail(len(lines)-1, "the diff ends inside SEARCH: missing ======= and +++++++ REPLACE")
	case state == inReplace:
		blocks = append(blocks, unterminated(cur))
	case len(blocks) == 0:
		return nil, &ParseError{Line: 1, Reason: "no SEARCH/REPLACE blocks found"}
	}
	return blocks, nil
}

// diffLines splits diff text into lines, accepting CRLF and a BOM.
func diffLines(diff string) []string {
	text := strings.ReplaceAll(strings.TrimPrefix(diff, bom), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// unterminated closes a last block whose REPLACE marker is missing. The
// marker is often lost when output is cut at the end; trailing blank lines
// are then padding, not meant content.
func unterminated(b block) block {
	for len(b.replace) > 0 && strings.TrimSpace(b.replace[len(b.replace)-1]) == "" {
		b.replace = b.replace[:len(b.replace)-1]
	}
	return b
}

// clip shortens s to at most n runes for messages.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
