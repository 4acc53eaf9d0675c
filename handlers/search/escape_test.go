package search

import (
	"regexp"
	"testing"
	"unicode"
)

// TestUnicodeSetsRuneByRune checks the classes built from the Unicode
// tables' ranges against the definitions applied to every code point: the
// compiled class matches exactly the runes the definition holds (or, for
// the negations, does not hold).
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
		re := regexp.MustCompile("^[" + c.ranges + "]$")
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			if got, want := re.MatchString(string(r)), c.in(r) != c.negate; got != want {
				t.Fatalf("%s: U+%04X matched %v, want %v", c.name, r, got, want)
			}
		}
	}
}
