package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
)

// matcher finds matching lines in a buffer. It prefers a literal prefilter
// (bytes.Index runs at memory speed) and only runs the regexp on the lines
// the prefilter cannot rule out.
type matcher struct {
	line *regexp.Regexp // whole pattern, run on one line at a time
	buf  *regexp.Regexp // (?m) form, run over a buffer when no literal helps
	// lits holds alternatives of which every match must contain one.
	lits [][]byte
	// pure says a hit on lits[0] is itself a match (the pattern is a literal).
	pure bool
}

const maxLiteralAlternatives = 8

func newMatcher(pattern string) (*matcher, error) {
	re, err := CompilePattern(pattern)
	if err != nil {
		return nil, err
	}
	translated, _ := translate(pattern)
	m := &matcher{line: re, buf: regexp.MustCompile("(?m:" + translated + ")")}
	tree, err := syntax.Parse(translated, syntax.Perl)
	if err != nil {
		return m, nil
	}
	tree = tree.Simplify()
	if tree.Op == syntax.OpLiteral && tree.Flags&syntax.FoldCase == 0 {
		m.lits, m.pure = [][]byte{[]byte(string(tree.Rune))}, true
		return m, nil
	}
	m.lits = required(tree)
	return m, nil
}

// required returns literals one of which occurs in every match, or nil.
func required(re *syntax.Regexp) [][]byte {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return [][]byte{[]byte(string(re.Rune))}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best [][]byte
		for _, sub := range re.Sub {
			if cand := required(sub); cand != nil && shortest(cand) > shortest(best) {
				best = cand
			}
		}
		return best
	case syntax.OpAlternate:
		var all [][]byte
		for _, sub := range re.Sub {
			cand := required(sub)
			if cand == nil {
				return nil
			}
			all = append(all, cand...)
		}
		if len(all) > maxLiteralAlternatives {
			return nil
		}
		return all
	}
	return nil
}

func shortest(lits [][]byte) int {
	if len(lits) == 0 {
		return 0
	}
	n := len(lits[0])
	for _, l := range lits[1:] {
		n = min(n, len(l))
	}
	return n
}

// matchLines calls yield with the [start, end) span (end excludes '\n') of
// every matching line of buf, in order.
func (m *matcher) matchLines(buf []byte, yield func(start, end int)) {
	if len(m.lits) == 0 {
		m.scanRegexp(buf, yield)
		return
	}
	pos := 0
	for pos < len(buf) {
		hit := m.nextLiteral(buf, pos)
		if hit < 0 {
			return
		}
		start := bytes.LastIndexByte(buf[:hit], '\n') + 1
		end := lineEnd(buf, hit)
		if m.pure || m.line.Match(buf[start:end]) {
			yield(start, end)
		}
		pos = end + 1
	}
}

// nextLiteral is the earliest offset >= pos where any literal occurs.
func (m *matcher) nextLiteral(buf []byte, pos int) int {
	best := -1
	for _, lit := range m.lits {
		limit := len(buf)
		if best >= 0 {
			limit = min(len(buf), best+len(lit))
		}
		if i := bytes.Index(buf[pos:limit], lit); i >= 0 && (best < 0 || pos+i < best) {
			best = pos + i
		}
	}
	return best
}

// scanRegexp runs the multi-line form over the buffer. The leftmost match
// found from a line start begins on the first line that has a match of its
// own, so lines it skips cannot match; a candidate that spans lines is
// confirmed on its first line alone.
func (m *matcher) scanRegexp(buf []byte, yield func(start, end int)) {
	pos := 0
	for pos <= len(buf) {
		loc := m.buf.FindIndex(buf[pos:])
		if loc == nil {
			return
		}
		s, e := pos+loc[0], pos+loc[1]
		start := bytes.LastIndexByte(buf[:s], '\n') + 1
		end := lineEnd(buf, s)
		if start >= len(buf) {
			return // the empty text after a final newline is not a line
		}
		if e <= end || m.line.Match(buf[start:end]) {
			yield(start, end)
		}
		pos = end + 1
	}
}

func lineEnd(buf []byte, at int) int {
	if i := bytes.IndexByte(buf[at:], '\n'); i >= 0 {
		return at + i
	}
	return len(buf)
}
