package search

// havePairBlocks: indexPairBlocks is vector code (SSE2, which every amd64
// processor has).
const havePairBlocks = true

// pairBlock is how many positions indexPairBlocks tries at once.
const pairBlock = 16

// indexPairBlocks is indexPair for len(b)-d a multiple of pairBlock.
//
//go:noescape
func indexPairBlocks(b []byte, d int, c1, m1, c2, m2 byte) int
