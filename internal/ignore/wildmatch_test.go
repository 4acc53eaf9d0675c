package ignore

import (
	"math"
	"strings"
	"testing"
)

// TestWildmatchBoundedWork runs a pattern that makes git's algorithm
// backtrack through every way of placing five stars in a name; memoized,
// the sub-matches computed stay within pattern length x text length.
func TestWildmatchBoundedWork(t *testing.T) {
	pat, text := "*a*a*a*a*a*b/c", strings.Repeat("a", 60)+"/c"
	w := wild{pathname: true, memoAfter: memoAfter}
	if got := w.match(pat, text); got == wmMatch {
		t.Fatalf("%q matched %q", pat, text)
	}
	if limit := (len(pat) + 1) * (len(text) + 1); w.calls > limit {
		t.Errorf("computed %d sub-matches; want at most %d", w.calls, limit)
	}
}

// FuzzWildmatchMemo checks that memoizing from the first sub-match gives
// the same result as never memoizing.
func FuzzWildmatchMemo(f *testing.F) {
	f.Add("**/*a*a*b", "x/aaa/aab", true)
	f.Add("a/**/b/**", "a/b/c/b/d", true)
	f.Add("[!a-c]*?[[:alpha:]]\\*", "dzq*", false)
	f.Fuzz(func(t *testing.T, pat, text string, pathname bool) {
		if strings.IndexByte(pat, 0) >= 0 {
			return // patterns never hold NUL: parsing cuts lines there
		}
		always := wild{pathname: pathname, memoAfter: -1}
		never := wild{pathname: pathname, memoAfter: math.MaxInt}
		if a, n := always.match(pat, text), never.match(pat, text); a != n {
			t.Errorf("match(%q, %q) = %d memoized, %d not", pat, text, a, n)
		}
	})
}
