package main

import (
	"testing"

	"github.com/toolgate/toolgate/internal/testbuild"
)

// TestStartSaysSandboxUnavailable: a toolgate whose configured sandbox
// this machine cannot give (here bubblewrap asked for and not on PATH; on
// other systems than Linux, any) says so in its start-up log, with the
// reason, instead of leaving it to the first refused command.
func TestStartSaysSandboxUnavailable(t *testing.T) {
	bin := testbuild.Binary(t, testbuild.Toolgate)
	srv := startWithConfig(t, bin, t.TempDir(), `{"sandbox": {"mode": "bwrap"}}`, "PATH="+t.TempDir())
	waitForLog(t, srv, "sandbox unavailable: commands will be refused", "bubblewrap")
}
