package search

import (
	"fmt"
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
	case c == 'n' && !inClass:
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

// buildUnicodeSets precomputes the range strings once; Rust's \w is
// Alphabetic + Mark + Decimal_Number + Connector_Punctuation + Join_Control,
// approximated with the general categories Go ships.
func buildUnicodeSets() {
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
	wordRanges = rangesOf(word, false)
	notWordRanges = rangesOf(word, true)
	spaceRanges = rangesOf(space, false)
	notSpaceRanges = rangesOf(space, true)
}

// rangesOf renders the code points where in(r) != negate as \x{lo}-\x{hi}
// ranges; surrogates are skipped because RE2 never matches them.
func rangesOf(in func(rune) bool, negate bool) string {
	var b strings.Builder
	start := rune(-1)
	flush := func(end rune) {
		if start < 0 {
			return
		}
		if start == end {
			fmt.Fprintf(&b, `\x{%X}`, start)
		} else {
			fmt.Fprintf(&b, `\x{%X}-\x{%X}`, start, end)
		}
		start = -1
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		if in(r) != negate {
			if start < 0 {
				start = r
			}
			continue
		}
		flush(r - 1)
	}
	flush(unicode.MaxRune)
	return b.String()
}
