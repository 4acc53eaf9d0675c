package process

import (
	"os/exec"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkLookPathRemembered measures lookPath of bash found before
// (lookPaths) against exec.LookPath walking PATH.
func BenchmarkLookPathRemembered(b *testing.B) {
	if _, _, err := lookPath("bash"); err != nil {
		b.Skip("no bash on PATH")
	}
	benchpair.Run(b, func() { _, _, _ = lookPath("bash") }, func() { _, _ = exec.LookPath("bash") })
}

// BenchmarkReadBuffers measures taking a pipe's 32 KiB read buffer from
// readBuffers against making one per pipe.
func BenchmarkReadBuffers(b *testing.B) { benchpair.Buffers(b, &readBuffers) }
