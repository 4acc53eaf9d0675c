package search

import "bytes"

// pairScan finds one literal by two of its bytes at once, as ripgrep's
// packed-pair prefilter does: a candidate start must hold both bytes at
// their offsets, which in source code, where every letter is common, rules
// out nearly every position that one byte alone would let through.
// Candidates are then compared whole. A folded literal (lowered, as
// foldedPieces makes it) is found in text that is not lowered: its two
// bytes match in either case.
type pairScan struct {
	src []byte
	lit []byte
	// i1 < i2 (or both 0 for a one-byte literal) are the offsets in lit of
	// the two bytes, c1 and c2; m1 and m2 are 0x20 for a folded letter
	// (whose two cases are equal once ORed with 0x20) and 0 for any other
	// byte.
	i1, i2         int
	c1, c2, m1, m2 byte
	fold           bool
}

// newPairScan scans src for the folded literal lit.
func newPairScan(src, lit []byte) pairScan {
	p := pairScan{src: src, lit: lit, fold: true}
	p.i1, p.i2 = rarePair(lit, byteRank)
	p.c1, p.m1 = foldMask(lit[p.i1])
	p.c2, p.m2 = foldMask(lit[p.i2])
	return p
}

// newExactPairScan scans src for the literal lit, exactly: for a literal
// whose first byte is common, faster than bytes.Index, which looks for
// that first byte (BenchmarkSearchGoTree, BenchmarkExactPairScan;
// docs/benchmarks.md).
func newExactPairScan(src, lit []byte) pairScan {
	p := pairScan{src: src, lit: lit}
	if len(lit) > 0 {
		p.i1, p.i2 = rarePair(lit, exactByteRank)
		p.c1, p.c2 = lit[p.i1], lit[p.i2]
	}
	return p
}

// rarePair picks the offsets i1 <= i2 in lit of its two rarest bytes by
// rank, preferring two that differ (a repeated byte rules out less).
func rarePair(lit []byte, rank func(byte) int) (i1, i2 int) {
	for i, c := range lit {
		if rank(c) > rank(lit[i1]) {
			i1 = i
		}
	}
	i2 = i1
	for i, c := range lit {
		if i == i1 {
			continue
		}
		better := i2 == i1 || (c != lit[i1]) && (lit[i2] == lit[i1] || rank(c) > rank(lit[i2]))
		if better {
			i2 = i
		}
	}
	if i2 < i1 {
		i1, i2 = i2, i1
	}
	return i1, i2
}

// foldMask is c and the mask that makes both cases of a letter equal to
// it (c is lowered).
func foldMask(c byte) (byte, byte) {
	if 'a' <= c && c <= 'z' {
		return c, 0x20
	}
	return c, 0
}

// next is the earliest offset >= pos where the literal occurs (in the
// lowered text, for a folded one), or -1.
func (p *pairScan) next(pos int) int {
	last := len(p.src) - len(p.lit) // the last possible start
	if len(p.lit) == 0 && pos <= last {
		return pos // found everywhere
	}
	for pos <= last {
		j := indexPair(p.src[pos+p.i1:last+p.i2+1], p.i2-p.i1, p.c1, p.m1, p.c2, p.m2)
		if j < 0 {
			return -1
		}
		start := pos + j
		cand := p.src[start : start+len(p.lit)]
		if p.fold && equalLowered(cand, p.lit) || !p.fold && bytes.Equal(cand, p.lit) {
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
