package mcphub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioTransportWithTheTypeScriptSDK: the hub's stdio connection
// talks to a server built on the TypeScript SDK (the reference
// filesystem server, which test.sh installs for the benchmarks): it
// connects, lists the tools and reads a file through one.
func TestStdioTransportWithTheTypeScriptSDK(t *testing.T) {
	scratch := os.Getenv("TOOLGATE_MCP_FS_DIR")
	if scratch == "" {
		scratch = filepath.Join(os.TempDir(), "toolgate-mcp-fs")
	}
	script := filepath.Join(scratch, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(script); serr != nil || err != nil {
		t.Skipf("needs node and @modelcontextprotocol/server-filesystem in %s (test.sh installs it)", scratch)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("over the TypeScript SDK\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startHub(t, Settings{MCPServers: map[string]ServerConfig{"fs": {Command: node, Args: []string{script, dir}, Timeout: 30}}})
	waitConnected(t, h, "fs", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.CallTool(ctx, "fs", "read_text_file", map[string]any{"path": file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "over the TypeScript SDK\n" {
		t.Fatalf("read_text_file answered %+v", res.Content)
	}
}

// echoConn connects a stdioConn to cat, which writes back each message
// the connection sends.
func echoConn(t *testing.T) mcp.Connection {
	t.Helper()
	conn, err := (&stdioTransport{cmd: exec.Command("cat"), terminate: time.Second}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestStdioConnDecodesEachMessageOnce: a response (what a server sends
// for each call) costs one decode. go-sdk's ioConn decodes every message
// twice, first as a batch (a JSON array), and each decode takes a fresh
// 32 KB buffer, so 64 KB or more per response; this connection takes
// less than 48 KB.
func TestStdioConnDecodesEachMessageOnce(t *testing.T) {
	conn := echoConn(t)
	ctx := context.Background()
	const n = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		id, _ := jsonrpc.MakeID(float64(i + 1))
		resp := &jsonrpc.Response{ID: id, Result: []byte(fmt.Sprintf(`{"content":[{"type":"text","text":"x%d"}]}`, i))}
		if err := conn.Write(ctx, resp); err != nil {
			t.Fatal(err)
		}
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := msg.(*jsonrpc.Response); !ok || got.ID != id || !strings.Contains(string(got.Result), fmt.Sprintf(`"x%d"`, i)) {
			t.Fatalf("message %d came back as %#v", i, msg)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per >= 48<<10 {
		t.Errorf("%d bytes allocated per message", per)
	}
}

// TestStdioConnRefusesWhatIoConnRefuses: trailing data after a message
// and a batch end the connection with an error, as go-sdk's ioConn does
// (for a batch, once the protocol version is 2025-06-18 or later).
func TestStdioConnRefusesWhatIoConnRefuses(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":{}} x` + "\n", "trailing data"},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]` + "\n", "batching"},
	} {
		cmd := exec.Command("printf", "%s", c.out)
		conn, err := (&stdioTransport{cmd: cmd, terminate: time.Second}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Read(context.Background()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: Read gave %v, want an error about %s", c.out, err, c.want)
		}
		conn.Close()
	}
}

// TestStdioConnStopsAServerThatStays: Close closes the server's stdin,
// then sends SIGTERM, then SIGKILL, waiting terminate after each (the MCP
// spec's stdio shutdown, as go-sdk's CommandTransport does it).
func TestStdioConnStopsAServerThatStays(t *testing.T) {
	for _, c := range []struct {
		name, script string
		signal       string
	}{
		{"ends on SIGTERM", `exec 0<&-; while :; do sleep 0.05; done`, "terminated"},
		{"ignores SIGTERM", `trap "" TERM; exec 0<&-; while :; do sleep 0.05; done`, "killed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", c.script)
			conn, err := (&stdioTransport{cmd: cmd, terminate: 100 * time.Millisecond}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			err = conn.Close()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || !strings.Contains(exit.String(), c.signal) {
				t.Fatalf("Close gave %v, want the process %s", err, c.signal)
			}
			if _, err := conn.Read(context.Background()); err == nil {
				t.Error("Read after Close gave no error")
			}
		})
	}
}
