package search

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// escape translates one backslash escape starting at t.i. inClass says the
// escape sits inside [...], where a class must be spliced as bare ranges.
func (t *translator) escape(inClass bool) error {
	if t.i+1 >= len(t.src) {
		return t.fail(`a trailing '\'`, "escapes nothing")
	}
	c := t.src[t.i+1]
	switch {
	case strings.IndexByte("wWdDsS", c) >= 0 && t.unicode:
		t.out.WriteString(perlClass(c, inClass))
		t.i += 2
		return nil
	case c >= '1' && c <= '9':
		return t.fail(`backreference \`+string(c), "is not supported (Rust regex and RE2 have no backreferences)")
	case c == 'k' && !inClass:
		return t.fail(`named backreference \k`, "is not supported")
	case c == '<' || c == '>':
		return t.fail(`word-boundary assertion \`+string(c), `is not supported; use \b`)
	case c == 'u' || c == 'U':
		return t.unicodeEscape(c)
	case c == 'p' || c == 'P':
		return t.property(c)
	case c == 'n' && !inClass && !t.multiline:
		return t.fail(`the literal "\n"`, "is not allowed in a regex (searches are line by line)")
	}
	t.out.WriteString(t.src[t.i : t.i+2])
	t.i += 2
	return nil
}

// unicodeEscape rewrites Rust's \u007F, \u{7F}, \U0000007F and \U{7F}.
func (t *translator) unicodeEscape(c byte) error {
	rest := t.src[t.i+2:]
	var hex string
	consumed := 0
	if strings.HasPrefix(rest, "{") {
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return t.fail(`\`+string(c)+"{", "is missing its closing '}'")
		}
		hex, consumed = rest[1:end], end+1
	} else {
		n := 4
		if c == 'U' {
			n = 8
		}
		if len(rest) < n {
			return t.fail(`\`+string(c), fmt.Sprintf("needs %d hex digits", n))
		}
		hex, consumed = rest[:n], n
	}
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil || v > unicode.MaxRune {
		return t.fail(`\`+string(c)+rest[:consumed], "is not a valid Unicode code point")
	}
	fmt.Fprintf(&t.out, `\x{%X}`, v)
	t.i += 2 + consumed
	return nil
}

// longProperties maps Rust's long Unicode property names to RE2's short ones.
var longProperties = map[string]string{
	"Letter": "L", "Lowercase_Letter": "Ll", "Uppercase_Letter": "Lu",
	"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
	"Mark": "M", "Number": "N", "Decimal_Number": "Nd", "Letter_Number": "Nl",
	"Other_Number": "No", "Punctuation": "P", "Symbol": "S", "Separator": "Z",
	"Space_Separator": "Zs", "Other": "C", "Control": "Cc", "Format": "Cf",
	"Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd", "Math_Symbol": "Sm",
	"Currency_Symbol": "Sc",
}

func (t *translator) property(c byte) error {
	rest := t.src[t.i+2:]
	if !strings.HasPrefix(rest, "{") {
		t.out.WriteString(t.src[t.i : t.i+2])
		t.i += 2
		return nil
	}
	end := strings.IndexByte(rest, '}')
	if end < 0 {
		return t.fail(`\`+string(c)+"{", "is missing its closing '}'")
	}
	name := strings.TrimSpace(rest[1:end])
	name = strings.TrimPrefix(strings.TrimPrefix(name, "gc="), "sc=")
	if short, ok := longProperties[name]; ok {
		name = short
	}
	fmt.Fprintf(&t.out, `\%c{%s}`, c, name)
	t.i += 2 + end + 1
	return nil
}

// perlClass returns Rust's Unicode meaning of \w \d \s and their negations,
// as a bracketed class or, inside a class, as bare ranges.
func perlClass(c byte, inClass bool) string {
	unicodeSetsOnce.Do(buildUnicodeSets)
	var set string
	switch c {
	case 'w':
		set = wordRanges
	case 'W':
		set = notWordRanges
	case 'd':
		set = `\p{Nd}`
	case 'D':
		set = `\P{Nd}`
	case 's':
		set = spaceRanges
	case 'S':
		set = notSpaceRanges
	}
	if inClass {
		return set
	}
	return "[" + set + "]"
}

var (
	unicodeSetsOnce                                        sync.Once
	wordRanges, notWordRanges, spaceRanges, notSpaceRanges string
)

// whiteSpace is Unicode's White_Space property, which Rust's \s uses.
var whiteSpace = []unicode.Range32{
	{Lo: 0x09, Hi: 0x0d, Stride: 1}, {Lo: 0x20, Hi: 0x20, Stride: 1},
	{Lo: 0x85, Hi: 0x85, Stride: 1}, {Lo: 0xa0, Hi: 0xa0, Stride: 1},
	{Lo: 0x1680, Hi: 0x1680, Stride: 1}, {Lo: 0x2000, Hi: 0x200a, Stride: 1},
	{Lo: 0x2028, Hi: 0x2029, Stride: 1}, {Lo: 0x202f, Hi: 0x202f, Stride: 1},
	{Lo: 0x205f, Hi: 0x205f, Stride: 1}, {Lo: 0x3000, Hi: 0x3000, Stride: 1},
}

// wordTables and wordExtra make Rust's \w: Alphabetic + Mark +
// Decimal_Number + Connector_Punctuation + Join_Control, approximated with
// the general categories Go ships.
var (
	wordTables = []*unicode.RangeTable{unicode.L, unicode.M, unicode.Nd, unicode.Pc, unicode.Nl, unicode.Other_Alphabetic}
	wordExtra  = []span{{0x200c, 0x200d}}
)

// buildUnicodeSets precomputes the range strings once, from the Unicode
// tables' ranges (not rune by rune: that took a tenth of a second or more,
// which the first search of a process with \w or \s paid).
func buildUnicodeSets() {
	word := tableSpans(wordTables, wordExtra)
	var ws []span
	for _, r := range whiteSpace {
		ws = append(ws, span{rune(r.Lo), rune(r.Hi)})
	}
	space := tableSpans(nil, ws)
	wordRanges = renderSpans(word)
	notWordRanges = renderSpans(complementSpans(word))
	spaceRanges = renderSpans(space)
	notSpaceRanges = renderSpans(complementSpans(space))
}

// span is the code points lo..hi.
type span struct{ lo, hi rune }

// tableSpans is the union of the tables and extra as sorted, disjoint,
// non-adjacent spans.
func tableSpans(tables []*unicode.RangeTable, extra []span) []span {
	spans := append([]span(nil), extra...)
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			spans = append(spans, span{lo, hi})
			return
		}
		for r := lo; r <= hi; r += stride {
			spans = append(spans, span{r, r})
		}
	}
	for _, t := range tables {
		for _, r := range t.R16 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 && s.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return out
}

// complementSpans is every code point outside spans, surrogates left out
// (RE2 never matches them).
func complementSpans(spans []span) []span {
	var out []span
	next := rune(0)
	gap := func(lo, hi rune) {
		for _, part := range []span{{lo, min(hi, 0xd7ff)}, {max(lo, 0xe000), hi}} {
			if part.lo <= part.hi {
				out = append(out, part)
			}
		}
	}
	for _, s := range spans {
		if s.lo > next {
			gap(next, s.lo-1)
		}
		next = s.hi + 1
	}
	if next <= unicode.MaxRune {
		gap(next, unicode.MaxRune)
	}
	return out
}

// renderSpans writes spans as \x{lo}-\x{hi} class ranges.
func renderSpans(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		if s.lo == s.hi {
			fmt.Fprintf(&b, `\x{%X}`, s.lo)
		} else {
			fmt.Fprintf(&b, `\x{%X}-\x{%X}`, s.lo, s.hi)
		}
	}
	return b.String()
}
