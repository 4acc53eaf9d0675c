package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
)

// matcher finds matching lines in a buffer. It prefers a literal prefilter
// (bytes.Index runs at memory speed) and only runs the regexp on the lines
// the prefilter cannot rule out (BenchmarkSearchGoTree; docs/benchmarks.md).
type matcher struct {
	line *regexp.Regexp // whole pattern, run on one line at a time
	buf  *regexp.Regexp // (?m) form, run over a buffer when no literal helps
	// lits holds alternatives of which every match must contain one.
	lits [][]byte
	// fold says lits are lowered and are looked for in lowered text (see
	// fold.go): the pattern has case-insensitive parts.
	fold bool
	// pure says a hit on lits[0] is itself a match (the pattern is a literal).
	pure bool
	// also are further literals every match contains (exactly, in any
	// order): a candidate line lacking one is dropped without the regexp.
	also [][]byte
	// pairs are the pair scans of lits with no text yet, each literal's
	// pair of bytes chosen once per search rather than once per file
	// (BenchmarkSearchGoTree; docs/benchmarks.md); nil for several folded
	// literals, which a foldScan finds.
	pairs []pairScan
}

const maxLiteralAlternatives = 8

func newMatcher(pattern string) (*matcher, error) {
	m, err := compileMatcher(pattern)
	if err != nil {
		return nil, err
	}
	switch {
	case m.fold && len(m.lits) == 1:
		m.pairs = []pairScan{newPairScan(nil, m.lits[0])}
	case !m.fold:
		for _, lit := range m.lits {
			m.pairs = append(m.pairs, newExactPairScan(nil, lit))
		}
	}
	return m, nil
}

func compileMatcher(pattern string) (*matcher, error) {
	re, err := CompilePattern(pattern)
	if err != nil {
		return nil, err
	}
	translated, _ := translate(pattern, false)
	m := &matcher{line: re, buf: regexp.MustCompile("(?m:" + translated + ")")}
	tree, err := syntax.Parse(translated, syntax.Perl)
	if err != nil {
		return m, nil
	}
	tree = tree.Simplify()
	if tree.Op == syntax.OpLiteral {
		if tree.Flags&syntax.FoldCase == 0 {
			m.lits, m.pure = [][]byte{[]byte(string(tree.Rune))}, true
			return m, nil
		}
		// A folded literal with no rune cut out is matched wherever its
		// lowered form occurs in lowered text.
		if pieces, whole := foldedPieces(tree.Rune); whole {
			m.lits, m.fold, m.pure = pieces, true, true
			return m, nil
		}
	}
	m.lits, m.fold = required(tree)
	m.also = alsoRequired(tree, m.lits)
	return m, nil
}

// alsoRequired lists the exact literals of a concatenation's parts that
// every match holds, besides the one the prefilter looks for.
func alsoRequired(re *syntax.Regexp, chosen [][]byte) [][]byte {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil
	}
	var also [][]byte
	for _, sub := range re.Sub {
		lits, fold := required(sub)
		if len(lits) == 1 && !fold && len(lits[0]) > 0 && !(len(chosen) == 1 && bytes.Equal(chosen[0], lits[0])) {
			also = append(also, lits[0])
		}
	}
	return also
}

// holdsAlso reports whether line holds every literal of m.also.
func (m *matcher) holdsAlso(line []byte) bool {
	for _, lit := range m.also {
		if !bytes.Contains(line, lit) {
			return false
		}
	}
	return true
}

// required returns literals one of which occurs in every match, or nil;
// fold says they are lowered, for lowered text.
func required(re *syntax.Regexp) (lits [][]byte, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return [][]byte{[]byte(string(re.Rune))}, false
		}
		pieces, _ := foldedPieces(re.Rune)
		var best []byte
		for _, p := range pieces {
			if len(p) > len(best) {
				best = p
			}
		}
		if best == nil {
			return nil, false
		}
		return [][]byte{best}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best [][]byte
		for _, sub := range re.Sub {
			if cand, f := required(sub); cand != nil && shortest(cand) > shortest(best) {
				best, fold = cand, f
			}
		}
		return best, fold
	case syntax.OpAlternate:
		var all [][]byte
		var folds []bool
		for _, sub := range re.Sub {
			cand, f := required(sub)
			if cand == nil {
				return nil, false
			}
			for range cand {
				folds = append(folds, f)
			}
			all = append(all, cand...)
			fold = fold || f
		}
		if len(all) > maxLiteralAlternatives {
			return nil, false
		}
		if fold {
			// Lowered text holds a lowered copy of every exact literal.
			for i, lit := range all {
				if !folds[i] {
					all[i] = make([]byte, len(lit))
					lowerASCII(all[i], lit)
				}
			}
		}
		return all, fold
	}
	return nil, false
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
	var next func(pos int) int
	switch {
	case m.pairs == nil:
		f := newFoldScan(buf, m.lits)
		defer f.release()
		next = f.next
	case len(m.pairs) == 1:
		p := m.pairs[0]
		p.src = buf
		next = p.next
	default:
		next = newPairScans(buf, m.pairs).next
	}
	pos := 0
	for pos < len(buf) {
		hit := next(pos)
		if hit < 0 {
			return
		}
		start := bytes.LastIndexByte(buf[:hit], '\n') + 1
		end := lineEnd(buf, hit)
		if m.pure || m.holdsAlso(buf[start:end]) && m.line.Match(buf[start:end]) {
			yield(start, end)
		}
		pos = end + 1
	}
}

// pairScans finds the earliest of several exact literals, each by its own
// pair scan. Each literal's next occurrence is kept until the search
// passes it, so every literal's scan crosses the buffer once.
type pairScans struct {
	scans []pairScan
	// at is each literal's next occurrence at or after the last pos
	// asked for; -1 when there is none, -2 before the first scan.
	at []int
}

// newPairScans scans buf with copies of the scans of m.pairs.
func newPairScans(buf []byte, pairs []pairScan) *pairScans {
	p := &pairScans{scans: slices.Clone(pairs), at: make([]int, len(pairs))}
	for i := range p.scans {
		p.scans[i].src = buf
		p.at[i] = -2
	}
	return p
}

// next is the earliest offset >= pos where any of the literals occurs, or
// -1; pos never decreases from one call to the next.
func (p *pairScans) next(pos int) int {
	best := -1
	for i := range p.scans {
		if p.at[i] != -1 && p.at[i] < pos {
			p.at[i] = p.scans[i].next(pos)
		}
		if p.at[i] >= 0 && (best < 0 || p.at[i] < best) {
			best = p.at[i]
		}
	}
	return best
}

// indexLiterals is the earliest offset >= pos where any of lits occurs.
func indexLiterals(buf []byte, pos int, lits [][]byte) int {
	best := -1
	for _, lit := range lits {
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
