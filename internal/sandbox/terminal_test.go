package sandbox

import (
	"slices"
	"testing"
)

// TestWithTerminal: a terminal run's bubblewrap line keeps its own
// session (no --new-session, so the terminal stays the controlling one)
// and sees under /dev/pts only its own terminal, bound in after /dev.
func TestWithTerminal(t *testing.T) {
	args := []string{"bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--dev", "/dev", "--proc", "/proc", "--", "bash"}
	got := withTerminal(args, "/dev/pts/7")
	want := []string{"bwrap", "--die-with-parent", "--unshare-pid", "--dev", "/dev", "--tmpfs", "/dev/pts", "--dev-bind", "/dev/pts/7", "/dev/pts/7",
		"--proc", "/proc", "--", "bash"}
	if !slices.Equal(got, want) {
		t.Errorf("withTerminal = %q\nwant %q", got, want)
	}
}
