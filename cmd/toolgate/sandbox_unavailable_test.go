package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/launch"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// TestStartSaysSandboxUnavailable: a toolgate whose configured sandbox
// this machine cannot give (here bubblewrap asked for and not on PATH; on
// other systems than Linux, any) says so in its start-up log, with the
// reason, instead of leaving it to the first refused command.
func TestStartSaysSandboxUnavailable(t *testing.T) {
	tmp := t.TempDir()
	bin := testbuild.Binary(t, testbuild.Toolgate)
	cfg := filepath.Join(tmp, "toolgate.json")
	if err := os.WriteFile(cfg, []byte(`{"sandbox": {"mode": "bwrap"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := launch.Start(context.Background(), bin, launch.Options{
		Args:    launch.ServeArgs(tmp, "--config", cfg, "--store", "memory"),
		Token:   "unavailable-token",
		BaseEnv: []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Kill)
	// The log reaches the buffer through a pipe: wait for it.
	for deadline := time.Now().Add(10 * time.Second); ; {
		log := srv.Log()
		if strings.Contains(log, "sandbox unavailable: commands will be refused") && strings.Contains(log, "bubblewrap") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no warning that the sandbox is unavailable; log:\n%s", log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
