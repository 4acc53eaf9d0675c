package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testbuild"
)

// The kinds of the network proxies' socket directories in $TMPDIR.
const (
	sessionNetDirs = "toolgate-net-"   // a session network's proxy
	relayDirs      = "toolgate-proxy-" // the network_allow relay of commands outside a session network (here a hook's)
)

// TestStartSweepsKilledServersNetworkDirs: a toolgate killed by SIGKILL
// leaves its network proxies' socket directories in $TMPDIR, its session
// network's and its network_allow relay's; the next toolgate to start
// removes them, and a toolgate starting beside a live one leaves the live
// one's alone. Before, nothing ever removed them; then only the session
// networks' were.
func TestStartSweepsKilledServersNetworkDirs(t *testing.T) {
	bin := testbuild.Binary(t, testbuild.Toolgate)
	ws, tmpdir := t.TempDir(), t.TempDir()
	// The hook runs outside the session's network, through the relay.
	config := `{"policy": {"allow_all": true}, "sandbox": {"network_allow": ["localhost"]},
		"hooks": {"PreToolUse": [{"matcher": "execute_command", "hooks": [{"command": "true"}]}]}}`
	start := func() *serverProcess {
		t.Helper()
		return startWithConfig(t, bin, ws, config, "PATH="+os.Getenv("PATH"), "TMPDIR="+tmpdir)
	}

	killed := start()
	before := socketDirs(t, tmpdir)
	runTrue(t, killed, "killed")
	dead := newSocketDirs(t, tmpdir, before)
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
	waitForLog(t, live, "left-over network proxy directories removed")

	before = socketDirs(t, tmpdir)
	runTrue(t, live, "live")
	mine := newSocketDirs(t, tmpdir, before)
	start() // another instance beside the live one
	for _, d := range mine {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("the live server's %s after another's start: %v, want kept", d, err)
		}
	}
	runTrue(t, live, "live-again") // its network and relay still work
}

// runTrue runs `true` through execute_command in the server's default
// session, which makes the session's network (and runs the hook).
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

// socketDirs are the network proxies' socket directories in tmpdir.
func socketDirs(t *testing.T, tmpdir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, kind := range []string{sessionNetDirs, relayDirs} {
		found, err := filepath.Glob(filepath.Join(tmpdir, kind+"*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range found {
			out[d] = true
		}
	}
	return out
}

// newSocketDirs are the socket directories in tmpdir not in before: none
// where the server makes no session network, else one of each kind.
func newSocketDirs(t *testing.T, tmpdir string, before map[string]bool) []string {
	t.Helper()
	var out []string
	kinds := map[string]int{}
	for d := range socketDirs(t, tmpdir) {
		if !before[d] {
			out = append(out, d)
			kinds[strings.TrimRight(filepath.Base(d), "0123456789")]++
		}
	}
	if len(out) > 0 && (len(out) != 2 || kinds[sessionNetDirs] != 1 || kinds[relayDirs] != 1) {
		t.Fatalf("new socket directories %q, want a session network's (%s*) and a relay's (%s*)", out, sessionNetDirs, relayDirs)
	}
	return out
}
