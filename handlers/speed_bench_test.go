package handlers

import (
	"fmt"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// BenchmarkClineCollator measures sorting a 200-entry listing with a
// collator from clineCollator against making a collator for the sort.
func BenchmarkClineCollator(b *testing.B) {
	var names []string
	for i := range 200 {
		names = append(names, fmt.Sprintf("src/pkg%d/file%03d.go", i%7, i))
	}
	work := make([]string, len(names))
	benchpair.Run(b, func() {
		copy(work, names)
		sortClineFiles(work)
	}, func() {
		copy(work, names)
		c := collate.New(language.Und, collate.IgnoreCase, collate.IgnoreDiacritics, collate.IgnoreWidth)
		slices.SortStableFunc(work, func(x, y string) int { return compareNames(c, x, y) })
	})
}

// BenchmarkCopyBuffers measures taking the 32 KiB buffer that hashes the
// rest of a read file from copyBuffers against making one per read.
func BenchmarkCopyBuffers(b *testing.B) { benchpair.Buffers(b, &copyBuffers) }
