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

	"github.com/toolgate/toolgate/internal/testbuild"
)

// TestStdioTransportWithTheTypeScriptSDK: the hub's stdio connection
// talks to a server built on the TypeScript SDK (the reference
// filesystem server, which test.sh installs for the benchmarks): it
// connects, lists the tools and reads a file through one.
func TestStdioTransportWithTheTypeScriptSDK(t *testing.T) {
	node, script := testbuild.FilesystemMCPServer(t)
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

// TestStdioConnDecodesWithoutBigBuffers: reading a response (what a
// server sends for each call) takes less than 16 KB. go-sdk's ioConn
// decodes every message twice, first as a batch (a JSON array), and each
// decode takes a fresh 32 KB buffer: 64 KB or more per response.
func TestStdioConnDecodesWithoutBigBuffers(t *testing.T) {
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
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per >= 16<<10 {
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

// TestDecodeMessageAsGoSDK: decodeMessage gives what go-sdk's
// jsonrpc.DecodeMessage gives for the same input (the same message, or
// an error for both), over the shapes servers send and malformed ones.
func TestDecodeMessageAsGoSDK(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":"a-1","result":{}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad","data":{"k":[1,2]}}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}`,
		`{"jsonrpc":"2.0","id":7,"error":null,"result":{}}`,
		`{"jsonrpc":"2.0","id":7,"result":null}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tg-1","progress":1}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"roots/list","params":null}`,
		`{"jsonrpc":"2.0","id":3,"method":null}`,
		`{"jsonrpc":"2.0","id":3,"method":""}`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","id":12345678901,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"extra":[1]}`,
		`{"jsonrpc":"2.0","ID":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"Result":{}}`,
		`{"JSONRPC":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"Code":5,"Message":"m"}}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"id":1,"result":{}}`,
		`{"jsonrpc":2,"id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
		`{"jsonrpc":"2.0","id":{},"result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":5}`,
		`{"jsonrpc":"2.0","id":1,"result":{"text":"\u00e9\ud83d\ude00 <&>"}}`,
		`"a string"`, `5`, `null`, `{}`,
	} {
		want, wantErr := jsonrpc.DecodeMessage([]byte(in))
		got, err := decodeMessage([]byte(in))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%s: error %v, go-sdk's %v", in, err, wantErr)
			continue
		}
		if err == nil && fmt.Sprintf("%#v", deref(got)) != fmt.Sprintf("%#v", deref(want)) {
			t.Errorf("%s:\n got %#v\nwant %#v", in, deref(got), deref(want))
		}
	}
}

// deref shows a message's fields, the error's included.
func deref(m jsonrpc.Message) any {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return *m
	case *jsonrpc.Response:
		r := struct {
			R jsonrpc.Response
			E any
		}{R: *m}
		if e, ok := m.Error.(*jsonrpc.Error); ok && e != nil {
			r.E, r.R.Error = *e, nil
		}
		return r
	}
	return m
}
