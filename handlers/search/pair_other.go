//go:build !amd64

package search

const (
	havePairBlocks = false
	pairBlock      = 1
)

func indexPairBlocks(b []byte, d int, c1, m1, c2, m2 byte) int { panic("unreachable") }
