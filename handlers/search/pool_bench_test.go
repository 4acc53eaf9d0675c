//go:build linux

package search

import (
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkSearchBuffers measures taking the directory-read buffer
// (direntBuffers) and the case-folding window (foldBuffers) from their
// pools against making one per directory read or per file scanned.
func BenchmarkSearchBuffers(b *testing.B) {
	b.Run("dirent", func(b *testing.B) { benchpair.Buffers(b, &direntBuffers) })
	b.Run("fold", func(b *testing.B) { benchpair.Buffers(b, &foldBuffers) })
}
