package search

import "math/bits"

// summary is a Bloom-style bitmap of the byte trigrams of a file's searched
// content with ASCII letters lowered (fold.go), so that it serves
// case-insensitive patterns too. A file whose summary lacks one trigram of
// every literal a match must contain cannot match, so repeated searches
// skip it without reading it. False positives only cost a read; there are
// no false negatives.
type summary []uint64

// Summary sizes: about one bit per byte of content keeps the bitmap a
// quarter full for source code, within these bounds.
const (
	minSummaryBits = 512
	maxSummaryBits = 32 << 10
)

func newSummary(content []byte) summary {
	n := max(minSummaryBits, min(maxSummaryBits, 1<<bits.Len(uint(len(content)))))
	s := make(summary, n/64)
	shift := 32 - uint(bits.TrailingZeros(uint(n)))
	if len(content) < 3 {
		return s
	}
	a, b := lowerByte(content[0]), lowerByte(content[1])
	for _, c := range content[2:] {
		c = lowerByte(c)
		h := trigramHash(a, b, c, shift)
		s[h>>6] |= 1 << (h & 63)
		a, b = b, c
	}
	return s
}

func trigramHash(a, b, c byte, shift uint) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> shift
}

// bytes is the memory the summary holds.
func (s summary) bytes() int64 { return int64(len(s)) * 8 }

// mayContain reports whether content summarised by s may hold lit (in any
// case of its ASCII letters). Literals shorter than a trigram are always
// possible.
func (s summary) mayContain(lit []byte) bool {
	if len(lit) < 3 {
		return true
	}
	shift := 32 - uint(bits.TrailingZeros(uint(len(s)*64)))
	for i := 0; i+2 < len(lit); i++ {
		h := trigramHash(lowerByte(lit[i]), lowerByte(lit[i+1]), lowerByte(lit[i+2]), shift)
		if s[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// mayMatch reports whether a file summarised by s may hold a match of a
// pattern whose every match contains one of lits (nil: no such literals).
func (s summary) mayMatch(lits [][]byte) bool {
	if lits == nil {
		return true
	}
	for _, lit := range lits {
		if s.mayContain(lit) {
			return true
		}
	}
	return false
}
