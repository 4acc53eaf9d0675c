package coordinator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/mcphub"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// TestMCPServerSandboxed runs the real MCP test server (a separate
// process over stdio) twice: with "sandbox": true in its settings entry,
// where it cannot read a file .clineignore excludes or a deny_read path,
// nor write outside the workspace, yet reads and writes the workspace;
// and without, where the same calls succeed (so the test fails without
// the sandbox).
func TestMCPServerSandboxed(t *testing.T) {
	bin := testbuild.Binary(t, testbuild.MCPTestServer)
	for _, mode := range []string{sandbox.ModeBwrap, sandbox.ModeLandlock} {
		t.Run(mode, func(t *testing.T) {
			if sb := sandbox.New(sandbox.Config{Mode: mode}); sb.Mode() != mode {
				t.Skipf("mode %s is not available here: %s", mode, sb.Info().Reason)
			}
			testMCPServerSandboxed(t, bin, mode)
		})
	}
}

func testMCPServerSandboxed(t *testing.T, bin, mode string) {
	dir := t.TempDir()
	// Writes go to work/: Landlock-only mode cannot let a new file be
	// made beside an ignored one (see docs/sandbox.md).
	files := map[string]string{".clineignore": "secret.txt\n", "secret.txt": "IGNORED-SECRET", "a.txt": "visible", "work/.keep": ""}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Outside places on the root file system (a private /tmp would hide
	// a t.TempDir from the sandbox anyway).
	outside, err := os.MkdirTemp("/var/tmp", "toolgate-mcp-outside-")
	if err != nil {
		t.Skipf("no writable /var/tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	denied := filepath.Join(outside, "denied.txt")
	if err := os.WriteFile(denied, []byte("DENIED-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}

	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	hub := mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{
		"boxed": {Command: bin, Sandbox: true, Timeout: 30},
		"plain": {Command: bin, Timeout: 30},
	}}, mcphub.Options{MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	c := New(Options{Config: Config{Sandbox: sandbox.Config{Mode: mode, DenyRead: []string{denied}}}, Workspace: ws, MCP: hub})
	hub.Start(context.Background())
	t.Cleanup(func() { hub.Close(); c.Close(); ws.Close() })

	deadline := time.Now().Add(30 * time.Second)
	for !connected(hub, "boxed") || !connected(hub, "plain") {
		if time.Now().After(deadline) {
			t.Fatalf("servers did not connect: %+v", hub.Servers())
		}
		time.Sleep(20 * time.Millisecond)
	}
	call := func(server, tool string, args map[string]any) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := hub.CallTool(ctx, server, tool, args, nil)
		if err != nil {
			t.Fatalf("%s %s: %v", server, tool, err)
		}
		out := ""
		for _, b := range res.Content {
			if tc, ok := b.(*mcp.TextContent); ok {
				out += tc.Text
			}
		}
		return out
	}

	for _, server := range []string{"boxed", "plain"} {
		boxed := server == "boxed"
		t.Run(server, func(t *testing.T) {
			if got := call(server, "readfile", map[string]any{"path": filepath.Join(dir, "a.txt")}); got != "read: visible" {
				t.Errorf("reading the workspace: %q, want read: visible", got)
			}
			for _, secret := range []struct{ path, text string }{
				{filepath.Join(dir, "secret.txt"), "IGNORED-SECRET"},
				{denied, "DENIED-SECRET"},
			} {
				got := call(server, "readfile", map[string]any{"path": secret.path})
				if leaked := strings.Contains(got, secret.text); leaked == boxed {
					t.Errorf("reading %s: %q (sandboxed %v)", secret.path, got, boxed)
				}
			}
			target := filepath.Join(outside, server+"-wrote.txt")
			got := call(server, "writefile", map[string]any{"path": target, "text": "x"})
			if _, err := os.Stat(target); (err == nil) == boxed {
				t.Errorf("writing outside the workspace: %q, file there: %v (sandboxed %v)", got, err == nil, boxed)
			}
			inside := filepath.Join(dir, "work", server+"-wrote.txt")
			if got := call(server, "writefile", map[string]any{"path": inside, "text": "y"}); got != "wrote" {
				t.Errorf("writing the workspace: %q, want wrote", got)
			}
		})
	}
}

func connected(h *mcphub.Hub, name string) bool {
	for _, s := range h.Servers() {
		if s.Name == name && s.State == api.MCPConnected {
			return true
		}
	}
	return false
}
