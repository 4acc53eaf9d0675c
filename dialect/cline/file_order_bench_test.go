package cline

import (
	"fmt"
	"slices"
	"testing"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkClineCollator measures sorting a 200-entry listing with a
// collator from the pool (collator) against making a collator for the sort.
func BenchmarkClineCollator(b *testing.B) {
	var names []string
	for i := range 200 {
		names = append(names, fmt.Sprintf("src/pkg%d/file%03d.go", i%7, i))
	}
	work := make([]string, len(names))
	benchpair.Run(b, func() {
		copy(work, names)
		sortFiles(work)
	}, func() {
		copy(work, names)
		c := collate.New(language.Und, collate.IgnoreCase, collate.IgnoreDiacritics, collate.IgnoreWidth)
		slices.SortStableFunc(work, func(x, y string) int { return compareNames(c, x, y) })
	})
}
