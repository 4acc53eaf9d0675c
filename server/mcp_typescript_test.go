package server

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/toolgate/toolgate/api"
)

// The /mcp facade cancelled from the TypeScript SDK, the MCP client most
// IDE extensions use. The script below drives the real
// @modelcontextprotocol/sdk (client/index.js Client.callTool,
// client/streamableHttp.js StreamableHTTPClientTransport): aborting the
// request's AbortSignal makes the SDK's Protocol.request send
// notifications/cancelled with the request id and the abort reason
// (shared/protocol.js) and reject the call. The transport keeps reading
// the call's POST stream (its fetch has the transport's signal, not the
// call's; client/streamableHttp.js send), so a response the server still
// sends arrives, and Protocol._onresponse reports it through onerror as
// "Received a response for an unknown message ID": the script taps the
// call's stream through the transport's fetch option and prints what came
// on it once the server has ended it. test.sh installs the package and
// names its node_modules in TOOLGATE_NODE_MODULES.
const tsCancelScript = `
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const sdk = process.env.SDK_DIR + "/dist/esm/";
const { Client } = await import(pathToFileURL(sdk + "client/index.js").href);
const { StreamableHTTPClientTransport } = await import(pathToFileURL(sdk + "client/streamableHttp.js").href);

// tapFetch hands the SDK the tools/call POST's stream unchanged and keeps
// a copy of it, given out when the server ends the stream.
let streamEnded;
const callStream = new Promise((resolve) => { streamEnded = resolve; });
const tapFetch = async (url, init) => {
  const res = await fetch(url, init);
  let isCall = false;
  try { isCall = init?.method === "POST" && JSON.parse(init.body).method === "tools/call"; } catch {}
  if (!isCall || !res.body) return res;
  const text = [], dec = new TextDecoder();
  const tap = new TransformStream({
    transform(chunk, ctl) { text.push(dec.decode(chunk, { stream: true })); ctl.enqueue(chunk); },
    flush() { streamEnded(text.join("")); },
  });
  return new Response(res.body.pipeThrough(tap), { status: res.status, statusText: res.statusText, headers: res.headers });
};

const client = new Client({ name: "toolgate-ts-test", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: "Bearer " + process.env.MCP_TOKEN } },
  fetch: tapFetch,
});
client.onerror = (err) => console.log("CLIENT ERROR " + err.message);
await client.connect(transport);
const stop = new AbortController();
const call = client.callTool(JSON.parse(process.env.MCP_CALL), undefined, { signal: stop.signal, timeout: 60000 });
console.log("CALLED");
await lines.next(); // "abort": the call reached the state the test wants
stop.abort("the user pressed stop");
try {
  await call;
  console.log("RESULT finished");
} catch (err) {
  console.log("RESULT rejected: " + err.message);
}
const wire = await callStream; // the server ended the call's stream
await client.listTools(); // a round trip: the SDK has read all that came before
console.log("CALL STREAM " + JSON.stringify(wire));
await lines.next(); // "close": the server has ended the call
await client.close();
process.stdin.destroy();
`

// tsSDKDir is the installed @modelcontextprotocol/sdk package.
func tsSDKDir(t *testing.T) string {
	t.Helper()
	nm := os.Getenv("TOOLGATE_NODE_MODULES")
	if nm == "" {
		t.Skip("TOOLGATE_NODE_MODULES is not set; test.sh installs @modelcontextprotocol/sdk and sets it")
	}
	dir := filepath.Join(nm, "@modelcontextprotocol", "sdk")
	if _, err := os.Stat(filepath.Join(dir, "dist", "esm", "client", "index.js")); err != nil {
		t.Fatalf("TOOLGATE_NODE_MODULES=%s has no @modelcontextprotocol/sdk: %v", nm, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed (test.sh installs nodejs)")
	}
	return dir
}

func TestMCPFacadeCancelFromTypeScriptSDK(t *testing.T) {
	sdk := tsSDKDir(t)
	ts, _ := newMCPTestServer(t)
	script := filepath.Join(t.TempDir(), "cancel.mjs")
	if err := os.WriteFile(script, []byte(tsCancelScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		allow []string
		call  string
		state api.CallState
		check func(t *testing.T)
	}{
		{"a running command", []string{"execute_command(sleep:*)"},
			`{"name":"execute_command","arguments":{"command":"sleep 20","requires_approval":false}}`, api.StateRunning, nil},
		{"a call waiting for approval", nil,
			`{"name":"write_to_file","arguments":{"path":"ts-new.txt","content":"x"}}`, api.StateAwaitingApproval,
			func(t *testing.T) {
				if _, err := os.Stat(filepath.Join(ts.workspace, "ts-new.txt")); err == nil {
					t.Error("the cancelled write happened")
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sid := facadeSession(t, ts, c.allow...)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", script)
			cmd.Env = append(os.Environ(), "SDK_DIR="+sdk, "MCP_URL="+ts.URL+"/mcp?session="+sid, "MCP_TOKEN="+testToken, "MCP_CALL="+c.call)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()

			start := time.Now()
			facadeCall(t, ts, sid, c.state)
			if _, err := io.WriteString(stdin, "abort\n"); err != nil {
				t.Fatalf("telling the client to abort: %v\n%s", err, out.String())
			}
			rec := facadeCall(t, ts, sid, api.StateDone)
			if rec.Status != api.StatusCancelled || time.Since(start) > 15*time.Second {
				t.Errorf("call = %+v after %v, want cancelled at once", rec, time.Since(start))
			}
			if _, err := io.WriteString(stdin, "close\n"); err != nil {
				t.Fatalf("telling the client to close: %v\n%s", err, out.String())
			}
			stdin.Close()
			if err := receive(t, exited); err != nil {
				t.Fatalf("the TypeScript client failed: %v\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), "RESULT rejected: ") || !strings.Contains(out.String(), "the user pressed stop") ||
				strings.Contains(out.String(), "Failed to send cancellation") {
				t.Errorf("client output %q, want the call rejected by the abort, the cancellation sent", out.String())
			}
			// No response for the cancelled request (MCP cancellation: the
			// receiver SHOULD NOT send one), so the client has nothing to
			// report as a response for an unknown id.
			if strings.Contains(out.String(), "unknown message ID") {
				t.Errorf("the client got a response to the cancelled call: %s", out.String())
			}
			if resp := sseResponses(t, out.String()); len(resp) > 0 {
				t.Errorf("the cancelled call's stream carried responses %q, want none", resp)
			}
			if c.check != nil {
				c.check(t)
			}
		})
	}
}

// sseResponses reads the "CALL STREAM" line the script prints and returns
// the JSON-RPC responses the stream carried.
func sseResponses(t *testing.T, out string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "CALL STREAM ")
	if !ok {
		t.Fatalf("the script printed no call stream: %s", out)
	}
	line, _, _ := strings.Cut(rest, "\n")
	var wire string
	if err := json.Unmarshal([]byte(line), &wire); err != nil {
		t.Fatalf("call stream %q: %v", line, err)
	}
	var responses []string
	for _, l := range strings.Split(wire, "\n") {
		data, ok := strings.CutPrefix(l, "data:")
		if !ok {
			continue
		}
		if msg, err := jsonrpc.DecodeMessage([]byte(strings.TrimSpace(data))); err == nil {
			if _, ok := msg.(*jsonrpc.Response); ok {
				responses = append(responses, data)
			}
		}
	}
	return responses
}
