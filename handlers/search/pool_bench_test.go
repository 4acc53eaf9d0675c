//go:build linux

package search

import (
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/getdents"
)

// BenchmarkSearchBuffers measures taking the directory-read buffer
// (getdents.Buffers) and the case-folding window (foldBuffers) from their
// pools against making one per directory read or per file scanned.
func BenchmarkSearchBuffers(b *testing.B) {
	b.Run("dirent", func(b *testing.B) { benchpair.Buffers(b, &getdents.Buffers) })
	b.Run("fold", func(b *testing.B) { benchpair.Buffers(b, &foldBuffers) })
}
