package search

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkExactPairScan finds every occurrence of exact literals in Go's
// net/http sources (about 3 MB) by their pair of rarest bytes
// (newExactPairScan) against bytes.Index, which looks for the first byte.
func BenchmarkExactPairScan(b *testing.B) {
	var text []byte
	dir := filepath.Join(goRoot(b), "src", "net", "http")
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		text = append(text, data...)
	}
	for _, lit := range []string{"ServeHTTP", "ErrBodyNotAllowed", "err != nil", "Hijacker"} {
		b.Run(lit, func(b *testing.B) {
			l := []byte(lit)
			var fast, plain int
			benchpair.Run(b, func() {
				p := newExactPairScan(text, l)
				fast = 0
				for pos := p.next(0); pos >= 0; pos = p.next(pos + 1) {
					fast++
				}
			}, func() {
				plain = 0
				for pos := 0; ; pos++ {
					i := bytes.Index(text[pos:], l)
					if i < 0 {
						break
					}
					pos += i
					plain++
				}
			})
			if fast != plain || fast == 0 {
				b.Fatalf("%s: %d occurrences by pairs, %d by bytes.Index", lit, fast, plain)
			}
		})
	}
}
