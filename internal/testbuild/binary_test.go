package testbuild

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryBuildsOnce: the program runs, and a second call returns the
// same build instead of building again.
func TestBinaryBuildsOnce(t *testing.T) {
	first := Binary(t, Toolgate)
	if out, err := exec.Command(first, "version").CombinedOutput(); err != nil || !strings.Contains(string(out), "toolgate") {
		t.Fatalf("%s version = %q, %v", first, out, err)
	}
	if again := Binary(t, Toolgate); again != first {
		t.Errorf("second Binary = %s, want the first build %s", again, first)
	}
}
