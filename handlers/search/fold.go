package search

import (
	"encoding/binary"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Case-insensitive patterns are prefiltered on text with ASCII letters
// lowered. That maps every spelling of a rune whose case orbit is ASCII only
// (a/A, but not k/K/U+212A KELVIN SIGN or s/S/U+017F LONG S) to one byte, and
// leaves every other byte alone. So a folded literal is cut at the runes
// whose spellings still differ after lowering (é/É, k, s), and the longest
// piece left is a literal every match contains in the lowered text.

// foldedPieces splits a case-folded literal into the runs of runes that
// lowering makes one byte sequence, lowered; the other runes separate them.
// whole says no rune was cut out: the literal is pieces[0].
func foldedPieces(runes []rune) (pieces [][]byte, whole bool) {
	var cur []byte
	whole = true
	for _, r := range runes {
		spelling, ok := loweredSpelling(r)
		if !ok {
			if len(cur) > 0 {
				pieces = append(pieces, cur)
			}
			cur, whole = nil, false
			continue
		}
		cur = append(cur, spelling...)
	}
	if len(cur) > 0 {
		pieces = append(pieces, cur)
	}
	return pieces, whole && len(pieces) == 1
}

// loweredSpelling is the one byte sequence every case variant of r that
// Go's regexp matches under (?i) (r's simple case folding orbit) has in
// lowered text; ok is false when the variants differ there.
func loweredSpelling(r rune) (spelling []byte, ok bool) {
	ascii := r < utf8.RuneSelf
	orbit := 1
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		orbit++
		ascii = ascii && f < utf8.RuneSelf
		if orbit > 8 { // orbits have at most four runes; never loop
			return nil, false
		}
	}
	switch {
	case orbit == 1:
		return utf8.AppendRune(nil, r), true
	case ascii:
		return []byte{lowerByte(byte(r))}, true
	}
	return nil, false
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// lowerASCII writes src with ASCII letters lowered into dst (len(dst) >=
// len(src)), eight bytes at a time.
func lowerASCII(dst, src []byte) {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		low7 := x &^ high
		// The high bit of each byte of geA says b >= 'A', of gtZ says b > 'Z'
		// (for bytes below 0x80; bytes with their own high bit are left).
		geA := low7 + (0x80-'A')*ones
		gtZ := low7 + (0x80-'Z'-1)*ones
		upper := geA &^ gtZ &^ x & high
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2)
	}
	for ; i < len(src); i++ {
		dst[i] = lowerByte(src[i])
	}
}

// foldScan finds literals in lowered text without lowering a whole file:
// it lowers a window of it at a time, moving the window as the search does.
type foldScan struct {
	src     []byte
	lits    [][]byte
	maxLen  int
	scratch *[]byte
	// low holds src[start:end] lowered.
	low        []byte
	start, end int
}

// foldWindow is how much text is lowered at a time: it stays in the cache
// while the literals are looked for in it.
const foldWindow = 32 << 10

// foldBuffers recycles the fold windows, one per file scanned
// (BenchmarkSearchBuffers, ./handlers/search/, docs/benchmarks.md).
var foldBuffers = sync.Pool{New: func() any { b := make([]byte, foldWindow); return &b }}

func newFoldScan(src []byte, lits [][]byte) *foldScan {
	f := &foldScan{src: src, lits: lits, scratch: foldBuffers.Get().(*[]byte)}
	for _, lit := range lits {
		f.maxLen = max(f.maxLen, len(lit))
	}
	if cap(*f.scratch) < 2*f.maxLen {
		*f.scratch = make([]byte, 2*f.maxLen)
	}
	f.low = (*f.scratch)[:cap(*f.scratch)]
	return f
}

func (f *foldScan) release() { foldBuffers.Put(f.scratch) }

// next is the earliest offset >= pos of src where a literal occurs in the
// lowered text, or -1.
func (f *foldScan) next(pos int) int {
	for pos < len(f.src) {
		// Below limit, every literal occurrence lies wholly in the window.
		limit := f.end
		if f.end < len(f.src) {
			limit = f.end - f.maxLen + 1
		}
		if pos < f.start || pos >= limit {
			f.start, f.end = pos, min(len(f.src), pos+len(f.low))
			lowerASCII(f.low, f.src[f.start:f.end])
			continue
		}
		hit := indexLiterals(f.low[:f.end-f.start], pos-f.start, f.lits)
		if hit >= 0 && f.start+hit < limit {
			return f.start + hit
		}
		if f.end == len(f.src) {
			return -1
		}
		pos = limit
	}
	return -1
}

func equalLowered(text, lit []byte) bool {
	for i, c := range lit {
		if lowerByte(text[i]) != c {
			return false
		}
	}
	return true
}

// byteRank orders bytes from common to rare in source code and prose, for
// choosing the byte a literal is looked for by; it need not be exact.
func byteRank(c byte) int {
	const letters = "etaoinsrlcdumhpfgbywvkxqjz" // most to least common
	switch {
	case c == ' ' || c == '\t' || c == '\n':
		return 0
	case 'a' <= c && c <= 'z':
		return 10 + strings.IndexByte(letters, c)
	case '0' <= c && c <= '9':
		return 20
	case c < utf8.RuneSelf:
		return 30
	}
	return 40 // non-ASCII
}

// exactByteRank is byteRank for text as it is: an upper-case letter is
// rarer than its lower case in source code and prose.
func exactByteRank(c byte) int {
	if 'A' <= c && c <= 'Z' {
		return 30 + byteRank(c+'a'-'A')
	}
	return byteRank(c)
}
