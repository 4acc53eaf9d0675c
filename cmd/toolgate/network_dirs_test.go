package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/launch"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// TestStartSweepsKilledServersNetworkDirs: a toolgate killed by SIGKILL
// leaves its session network's socket directory in $TMPDIR; the next
// toolgate to start removes it, and a toolgate starting beside a live one
// leaves the live one's alone. Before, nothing ever removed them.
func TestStartSweepsKilledServersNetworkDirs(t *testing.T) {
	tmp := t.TempDir()
	bin := testbuild.Binary(t, testbuild.Toolgate)
	ws, cfg, tmpdir := filepath.Join(tmp, "ws"), filepath.Join(tmp, "toolgate.json"), filepath.Join(tmp, "tmp")
	for _, d := range []string{ws, tmpdir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(cfg, []byte(`{"policy": {"allow_all": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func() *serverProcess {
		t.Helper()
		srv, err := launch.Start(context.Background(), bin, launch.Options{
			Args:    launch.ServeArgs(ws, "--config", cfg, "--store", "memory"),
			Token:   "net-dirs-token",
			BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + tmpdir},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Kill)
		return &serverProcess{Server: srv, client: &http.Client{Timeout: 20 * time.Second}}
	}

	killed := start()
	before := netDirs(t, tmpdir)
	runTrue(t, killed, "killed")
	dead := newNetDirs(t, tmpdir, before)
	if len(dead) == 0 {
		t.Skip("the server made no session network here (bubblewrap mode with network namespaces needed)")
	}
	killed.kill(t)
	for _, d := range dead {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("%s before the next start: %v, want left behind by SIGKILL", d, err)
		}
	}

	live := start() // its start-up sweeps what the killed one left
	for _, d := range dead {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s after the next start: %v, want removed", d, err)
		}
	}
	// The log reaches the buffer through a pipe: wait for it.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(live.Log(), "left-over session network directories removed"); {
		if time.Now().After(deadline) {
			t.Fatalf("no sweep logged; log:\n%s", live.Log())
		}
		time.Sleep(10 * time.Millisecond)
	}

	before = netDirs(t, tmpdir)
	runTrue(t, live, "live")
	mine := newNetDirs(t, tmpdir, before)
	if len(mine) == 0 {
		t.Fatal("the live server made no session network")
	}
	start() // another instance beside the live one
	for _, d := range mine {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("the live server's %s after another's start: %v, want kept", d, err)
		}
	}
	runTrue(t, live, "live-again") // its network still works
}

// runTrue runs `true` through execute_command in the server's default
// session, which makes the session's network.
func runTrue(t *testing.T, p *serverProcess, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := p.do(ctx, "POST", "/v1/sessions/default/messages", map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "tool_use", "id": id, "name": "execute_command",
			"input": map[string]any{"command": "true", "requires_approval": false}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || strings.Contains(string(body), `"is_error":true`) {
		t.Fatalf("command %s: %d %s", id, resp.StatusCode, body)
	}
}

// netDirs are the session network directories in tmpdir.
func netDirs(t *testing.T, tmpdir string) map[string]bool {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(tmpdir, "toolgate-net-*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range found {
		out[d] = true
	}
	return out
}

// newNetDirs are the session network directories in tmpdir not in before.
func newNetDirs(t *testing.T, tmpdir string, before map[string]bool) []string {
	t.Helper()
	var out []string
	for d := range netDirs(t, tmpdir) {
		if !before[d] {
			out = append(out, d)
		}
	}
	if len(out) > 1 {
		t.Fatalf("%d new session network directories, want 1: %s", len(out), fmt.Sprint(out))
	}
	return out
}
