package handlers

import (
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkCopyBuffers measures taking the 32 KiB buffer that hashes the
// rest of a read file from copyBuffers against making one per read.
func BenchmarkCopyBuffers(b *testing.B) { benchpair.Buffers(b, &copyBuffers) }
