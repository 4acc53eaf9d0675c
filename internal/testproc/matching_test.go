package testproc

import (
	"os/exec"
	"slices"
	"strconv"
	"testing"
)

// TestMatchingFindsAStartedProcess: a process is listed while it runs,
// by a marker spanning two of its arguments.
func TestMatchingFindsAStartedProcess(t *testing.T) {
	cmd := exec.Command("sleep", "30", "1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	if got := Matching("sleep 30 1"); !slices.Contains(got, strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("Matching = %v, want it to hold %d", got, cmd.Process.Pid)
	}
}
