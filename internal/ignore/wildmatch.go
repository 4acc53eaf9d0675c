package ignore

import "strings"

// Results of wildmatch. The two abort results let a '*' stop trying longer
// expansions once no expansion can succeed; they are what keeps matching
// linear-ish on patterns like "*a*a*a*b" and they must be kept as git keeps
// them, because they also change which paths match.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches the glob pat with git's wildmatch
// semantics. With pathname set, '*', '?' and bracket expressions never
// match '/', and '**' matches across directories only as a whole path
// component ("**/", "/**/", "/**").
func wildmatch(pat, text string, pathname bool) bool {
	w := wild{pathname: pathname, memoAfter: memoAfter}
	return w.match(pat, text) == wmMatch
}

// memoAfter is the number of sub-matches after which results are memoized.
// git's algorithm backtracks: "x/*a*a*a*a*a*b" against a 200-byte name
// takes minutes in git itself. Every sub-match is a pure function of the
// pattern suffix and text suffix it is given, so caching by their lengths
// bounds the work by pattern length x text length squared without changing
// any result. Ordinary patterns never reach the threshold and allocate
// nothing.
const memoAfter = 256

// wild is one top-level wildmatch: the mode and the memo of sub-matches.
type wild struct {
	pathname  bool
	memoAfter int // sub-matches computed before memoizing starts
	calls     int // sub-matches computed
	memo      map[[2]int]int
}

// match is dowild with memoization; pat and text are always suffixes of the
// top-level pattern and text, so their lengths identify them.
func (w *wild) match(pat, text string) int {
	key := [2]int{len(pat), len(text)}
	if w.memo != nil {
		if r, ok := w.memo[key]; ok {
			return r
		}
	}
	r := w.dowild(pat, text)
	if w.calls++; w.memo == nil && w.calls > w.memoAfter {
		w.memo = make(map[[2]int]int)
	}
	if w.memo != nil {
		w.memo[key] = r
	}
	return r
}

// at returns pat[i], or 0 past the end: git's matcher walks NUL-terminated
// strings and several of its decisions look one byte ahead.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// isGlobSpecial reports the bytes git treats as glob syntax.
func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func (w *wild) dowild(pat, text string) int {
	pathname := w.pathname
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pc := pat[p]
		if t >= len(text) && pc != '*' {
			return wmAbortAll
		}
		tc := at(text, t)
		switch pc {
		case '\\':
			// A trailing backslash compares against the terminator and fails.
			p++
			if tc != at(pat, p) {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			r, np, nt, done := w.star(pat, text, p, t)
			if done {
				return r
			}
			p, t = np, nt
		case '[':
			end, ok, abort := bracket(pat, p, tc)
			if abort {
				return wmAbortAll
			}
			if !ok || (pathname && tc == '/') {
				return wmNoMatch
			}
			p = end
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// star handles a run of '*' starting at pat[p]. It either decides the whole
// match (done) or, for a single '*' followed by '/', skips text to the next
// slash and returns positions from which the main loop continues.
func (w *wild) star(pat, text string, p, t int) (result, np, nt int, done bool) {
	pathname := w.pathname
	var matchSlash bool
	p++
	if at(pat, p) == '*' {
		prev := p - 2
		for p++; at(pat, p) == '*'; p++ {
		}
		switch {
		case !pathname:
			matchSlash = true
		case (prev < 0 || pat[prev] == '/') &&
			(p == len(pat) || pat[p] == '/' || (pat[p] == '\\' && at(pat, p+1) == '/')):
			// "**/" may match no directory at all: try the rest right here.
			if at(pat, p) == '/' && w.match(pat[p+1:], text[t:]) == wmMatch {
				return wmMatch, 0, 0, true
			}
			matchSlash = true
		default:
			matchSlash = false
		}
	} else {
		matchSlash = !pathname
	}
	if p == len(pat) {
		if !matchSlash && strings.IndexByte(text[t:], '/') >= 0 {
			return wmNoMatch, 0, 0, true
		}
		return wmMatch, 0, 0, true
	}
	if !matchSlash && pat[p] == '/' {
		i := strings.IndexByte(text[t:], '/')
		if i < 0 {
			return wmNoMatch, 0, 0, true
		}
		// Both sides now sit on a '/', which the main loop consumes.
		return 0, p, t + i, false
	}
	for t < len(text) {
		if c := pat[p]; !isGlobSpecial(c) {
			// The text before the next literal must belong to the star.
			for t < len(text) && (matchSlash || text[t] != '/') && text[t] != c {
				t++
			}
			if t >= len(text) || text[t] != c {
				return wmNoMatch, 0, 0, true
			}
		}
		m := w.match(pat[p:], text[t:])
		if m != wmNoMatch {
			if !matchSlash || m != wmAbortToStarStar {
				return m, 0, 0, true
			}
		} else if !matchSlash && text[t] == '/' {
			return wmAbortToStarStar, 0, 0, true
		}
		t++
	}
	return wmAbortAll, 0, 0, true
}

// bracket matches tc against the bracket expression starting at pat[p]
// ('['). It returns the index of the closing ']', whether tc is accepted
// (negation applied), and abort for a malformed expression, which makes the
// whole pattern fail.
func bracket(pat string, p int, tc byte) (end int, ok, abort bool) {
	p++
	pc := at(pat, p)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		p++
		pc = at(pat, p)
	}
	var prev byte
	matched := false
	for {
		if pc == 0 {
			return 0, false, true
		}
		switch {
		case pc == '\\':
			p++
			pc = at(pat, p)
			if pc == 0 {
				return 0, false, true
			}
			if tc == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && at(pat, p+1) != 0 && at(pat, p+1) != ']':
			hi, np := rangeEnd(pat, p)
			if hi == 0 {
				return 0, false, true
			}
			matched = matched || (tc <= hi && tc >= prev)
			p = np
			pc = 0 // a range cannot start another range
		case pc == '[' && at(pat, p+1) == ':':
			end, in, isClass, bad := posixClass(pat, p, tc)
			if bad {
				return 0, false, true
			}
			if !isClass {
				// Not "[:name:]": the '[' is an ordinary member.
				matched = matched || tc == '['
				break
			}
			matched = matched || in
			p = end
			pc = 0
		default:
			if tc == pc {
				matched = true
			}
		}
		prev = pc
		p++
		pc = at(pat, p)
		if pc == ']' {
			break
		}
	}
	return p, matched != negated, false
}

// rangeEnd reads the upper bound of a range whose '-' is at pat[p] and
// returns it with its index; 0 means the pattern ended inside an escape.
func rangeEnd(pat string, p int) (hi byte, end int) {
	p++
	if pat[p] == '\\' {
		p++
	}
	return at(pat, p), p
}

// posixClass reads "[:name:]" at pat[p] inside a bracket expression. It
// returns the index of its final ']' and whether tc is in the class;
// isClass is false when no ":]" closes it (the '[' is then a plain member)
// and bad is set for an unterminated bracket or an unknown class name.
func posixClass(pat string, p int, tc byte) (end int, in, isClass, bad bool) {
	s := p + 2
	q := s
	for at(pat, q) != 0 && pat[q] != ']' {
		q++
	}
	if at(pat, q) == 0 {
		return 0, false, false, true
	}
	if q-s-1 < 0 || pat[q-1] != ':' {
		return 0, false, false, false
	}
	in, known := inClass(pat[s:q-1], tc)
	if !known {
		return 0, false, false, true
	}
	return q, in, true, false
}

// inClass reports whether c belongs to the POSIX class name, using git's
// ASCII-only character table (its sane_ctype), so results never depend on
// the locale. known is false for an unknown class name.
func inClass(name string, c byte) (in, known bool) {
	isDigit := c >= '0' && c <= '9'
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isAlpha := isUpper || isLower
	isPrint := c >= 0x20 && c <= 0x7e
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return isPrint && c != ' ', true
	case "lower":
		return isLower, true
	case "print":
		return isPrint, true
	case "punct":
		return isPrint && c != ' ' && !isAlpha && !isDigit, true
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
