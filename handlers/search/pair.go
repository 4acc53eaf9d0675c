package search

// pairScan finds one folded literal (lowered, as foldedPieces makes it) in
// text that is not lowered, by two of its bytes at once, as ripgrep's
// packed-pair prefilter does: a candidate start must hold both bytes at
// their offsets in either case, which in source code, where every letter
// is common, rules out nearly every position that one byte alone would
// let through. Candidates are then compared whole.
type pairScan struct {
	src []byte
	lit []byte
	// i1 < i2 (or both 0 for a one-byte literal) are the offsets in lit of
	// the two bytes, c1 and c2; m1 and m2 are 0x20 for a letter (whose two
	// cases are equal once ORed with 0x20) and 0 for any other byte.
	i1, i2         int
	c1, c2, m1, m2 byte
}

func newPairScan(src, lit []byte) pairScan {
	p := pairScan{src: src, lit: lit}
	for i, c := range lit {
		if byteRank(c) > byteRank(lit[p.i1]) {
			p.i1 = i
		}
	}
	p.i2 = p.i1
	for i, c := range lit {
		if i == p.i1 {
			continue
		}
		// The rarest byte after the first, preferring one that differs
		// from it (a repeated byte rules out less).
		better := p.i2 == p.i1 || (c != lit[p.i1]) && (lit[p.i2] == lit[p.i1] || byteRank(c) > byteRank(lit[p.i2]))
		if better {
			p.i2 = i
		}
	}
	if p.i2 < p.i1 {
		p.i1, p.i2 = p.i2, p.i1
	}
	p.c1, p.m1 = foldMask(lit[p.i1])
	p.c2, p.m2 = foldMask(lit[p.i2])
	return p
}

// foldMask is c and the mask that makes both cases of a letter equal to
// it (c is lowered).
func foldMask(c byte) (byte, byte) {
	if 'a' <= c && c <= 'z' {
		return c, 0x20
	}
	return c, 0
}

// next is the earliest offset >= pos where the literal occurs in the
// lowered text, or -1.
func (p *pairScan) next(pos int) int {
	last := len(p.src) - len(p.lit) // the last possible start
	for pos <= last {
		j := indexPair(p.src[pos+p.i1:last+p.i2+1], p.i2-p.i1, p.c1, p.m1, p.c2, p.m2)
		if j < 0 {
			return -1
		}
		start := pos + j
		if equalLowered(p.src[start:start+len(p.lit)], p.lit) {
			return start
		}
		pos = start + 1
	}
	return -1
}

// indexPair is the first i with b[i]|m1 == c1 and b[i+d]|m2 == c2, or -1.
func indexPair(b []byte, d int, c1, m1, c2, m2 byte) int {
	n := len(b) - d // positions to try
	if n <= 0 {
		return -1
	}
	full := 0
	if havePairBlocks {
		full = n &^ (pairBlock - 1)
		if full > 0 {
			if i := indexPairBlocks(b[:full+d], d, c1, m1, c2, m2); i >= 0 {
				return i
			}
		}
	}
	for i := full; i < n; i++ {
		if b[i]|m1 == c1 && b[i+d]|m2 == c2 {
			return i
		}
	}
	return -1
}
