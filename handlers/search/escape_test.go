package search

import (
	"regexp/syntax"
	"testing"
	"unicode"
)

// TestUnicodeSetsRuneByRune checks the classes built from the Unicode
// tables' ranges against the definitions applied to every code point: the
// compiled class matches exactly the runes the definition holds (or, for
// the negations, does not hold).
//
// (Surrogates are left out: RE2 never matches them.)
func TestUnicodeSetsRuneByRune(t *testing.T) {
	unicodeSetsOnce.Do(buildUnicodeSets)
	word := func(r rune) bool {
		return unicode.In(r, unicode.L, unicode.M, unicode.Nd, unicode.Pc, unicode.Nl, unicode.Other_Alphabetic) ||
			r == 0x200c || r == 0x200d
	}
	space := func(r rune) bool {
		for _, rg := range whiteSpace {
			if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		name   string
		ranges string
		in     func(rune) bool
		negate bool
	}{
		{`\w`, wordRanges, word, false},
		{`\W`, notWordRanges, word, true},
		{`\s`, spaceRanges, space, false},
		{`\S`, notSpaceRanges, space, true},
	} {
		// The class as the regexp package reads it: sorted lo, hi pairs.
		re, err := syntax.Parse("["+c.ranges+"]", syntax.Perl)
		if err != nil || re.Op != syntax.OpCharClass {
			t.Fatalf("%s: %v, op %v", c.name, err, re.Op)
		}
		pairs := re.Rune
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			for len(pairs) > 0 && pairs[1] < r {
				pairs = pairs[2:]
			}
			if got, want := len(pairs) > 0 && pairs[0] <= r, c.in(r) != c.negate; got != want {
				t.Fatalf("%s: U+%04X matched %v, want %v", c.name, r, got, want)
			}
		}
	}
}
