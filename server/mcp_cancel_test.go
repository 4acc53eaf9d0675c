package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/api"
)

// Cancellation and approvals from MCP clients of the /mcp facade, with
// go-sdk's client: cancelling a CallTool's context (a deadline, or a
// cancel) sends notifications/cancelled (go-sdk mcp/shared.go, as the
// TypeScript SDK's Protocol does on an aborted request, src/shared/
// protocol.ts), and a client with an ElicitationHandler declares the
// elicitation capability and answers elicitation/create (go-sdk
// mcp/client.go; typescript-sdk src/types.ts ElicitRequestSchema,
// ElicitResultSchema).

// facadeSession creates a session with the given allow rules and returns
// its id.
func facadeSession(t *testing.T, ts *testServer, allow ...string) string {
	t.Helper()
	body := map[string]any{"mode": "act"}
	if len(allow) > 0 {
		body["permissions"] = map[string]any{"allow": allow}
	}
	return decodeBody[api.Session](t, ts.do(t, http.MethodPost, "/v1/sessions", body), http.StatusCreated).ID
}

func connectWith(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{testToken}}, MaxRetries: -1, DisableStandaloneSSE: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// facadeCall waits, up to a deadline, for the session's one facade call
// to reach a state, and returns its record.
func facadeCall(t *testing.T, ts *testServer, sid string, state api.CallState) api.CallRecord {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := decodeBody[api.CallsResponse](t, ts.do(t, http.MethodGet, "/v1/sessions/"+sid+"/calls?state="+string(state), nil), http.StatusOK)
		for _, c := range got.Calls {
			if strings.HasPrefix(c.ToolUseID, "mcp_") {
				return c
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no facade call in state %s within 10s", state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestMCPFacadeCancel(t *testing.T) {
	ts, _ := newMCPTestServer(t)

	t.Run("a running command, by a context deadline", func(t *testing.T) {
		sid := facadeSession(t, ts, "execute_command(sleep:*)")
		cs := connectWith(t, ts.URL+"/mcp?session="+sid, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_command", Arguments: map[string]any{"command": "sleep 20", "requires_approval": false}})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("CallTool = %v, want the deadline", err)
		}
		rec := facadeCall(t, ts, sid, api.StateDone)
		if rec.Status != api.StatusCancelled || time.Since(start) > 15*time.Second {
			t.Errorf("call = %+v after %v, want cancelled long before sleep 20 ends", rec, time.Since(start))
		}
	})
	t.Run("a call waiting for approval", func(t *testing.T) {
		sid := facadeSession(t, ts)
		cs := connectWith(t, ts.URL+"/mcp?session="+sid, nil) // no elicitation: the approval waits on the event stream
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_to_file", Arguments: map[string]any{"path": "new.txt", "content": "x"}})
			errc <- err
		}()
		facadeCall(t, ts, sid, api.StateAwaitingApproval)
		cancel()
		if err := receive(t, errc); !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool = %v, want cancelled", err)
		}
		rec := facadeCall(t, ts, sid, api.StateDone)
		if rec.Status != api.StatusCancelled {
			t.Errorf("call = %+v, want cancelled", rec)
		}
		if _, err := os.Stat(filepath.Join(ts.workspace, "new.txt")); err == nil {
			t.Error("the cancelled write happened")
		}
	})
}

func TestMCPFacadeElicitsApprovals(t *testing.T) {
	ts, _ := newMCPTestServer(t)
	answer := func(action, decision, feedback string) *mcp.ClientOptions {
		return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(req.Params.Message, "write_to_file") {
				return nil, errors.New("the message does not name the tool: " + req.Params.Message)
			}
			res := &mcp.ElicitResult{Action: action}
			if action == "accept" {
				res.Content = map[string]any{"decision": decision, "feedback": feedback}
			}
			return res, nil
		}}
	}
	cases := []struct {
		name                     string
		opts                     *mcp.ClientOptions
		wantErr                  bool
		wantText, file, fileWant string
	}{
		{"approve with feedback", answer("accept", "approve", "looks good"), false, "looks good", "ok.txt", "x"},
		{"reject with feedback", answer("accept", "reject", "not that file"), true, "not that file", "no.txt", ""},
		{"decline", answer("decline", "", ""), true, "declined", "dec.txt", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sid := facadeSession(t, ts)
			cs := connectWith(t, ts.URL+"/mcp?session="+sid, c.opts)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_to_file", Arguments: map[string]any{"path": c.file, "content": "x"}})
			if err != nil {
				t.Fatalf("CallTool: %v (the approval was not elicited?)", err)
			}
			if res.IsError != c.wantErr || !strings.Contains(mcpText(res), c.wantText) {
				t.Errorf("result = %q (is_error %v), want is_error %v with %q", mcpText(res), res.IsError, c.wantErr, c.wantText)
			}
			data, _ := os.ReadFile(filepath.Join(ts.workspace, c.file))
			if string(data) != c.fileWant {
				t.Errorf("%s holds %q, want %q", c.file, data, c.fileWant)
			}
		})
	}
}

// TestMCPFacadeAnswersNoCancelledRequest speaks the streamable HTTP
// transport by hand, so the wire itself is checked: after
// notifications/cancelled names a running tools/call, the call's POST
// stream ends without a response for it (MCP basic/utilities/cancellation:
// receivers SHOULD NOT send one), the command is stopped, and the call is
// recorded as cancelled. A call in the same session that is not cancelled
// is still answered.
func TestMCPFacadeAnswersNoCancelledRequest(t *testing.T) {
	ts, _ := newMCPTestServer(t)
	sid := facadeSession(t, ts, "execute_command(sleep:*)")
	var mcpSession string
	// post sends one message and returns the whole response: its
	// Mcp-Session-Id and body. go-sdk sends a call's headers with its
	// first event, so a call's post waits for its stream to end.
	post := func(body string) (string, string, error) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/mcp?session="+sid, strings.NewReader(body))
		if err != nil {
			return "", "", err
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if mcpSession != "" {
			req.Header.Set("Mcp-Session-Id", mcpSession)
		}
		resp, err := testHTTP.Do(req)
		if err != nil {
			return "", "", err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode/100 != 2 {
			err = fmt.Errorf("POST %s: %d %s", body, resp.StatusCode, data)
		}
		return resp.Header.Get("Mcp-Session-Id"), string(data), err
	}
	type answer struct {
		wire string
		err  error
	}
	postAsync := func(body string) <-chan answer {
		out := make(chan answer, 1)
		go func() {
			_, wire, err := post(body)
			out <- answer{wire, err}
		}()
		return out
	}
	must := func(_ string, _ string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	id, _, err := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if err != nil || id == "" {
		t.Fatalf("initialize: session %q, %v", id, err)
	}
	mcpSession = id
	must(post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))

	cancelled := postAsync(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_command","arguments":{"command":"sleep 20","requires_approval":false}}}`)
	facadeCall(t, ts, sid, api.StateRunning)
	must(post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user pressed stop"}}`))
	if a := receive(t, cancelled); a.err != nil || strings.Contains(a.wire, `"id":7`) {
		t.Errorf("the cancelled call's stream: %q (%v), want it to end with no response", a.wire, a.err)
	}
	if rec := facadeCall(t, ts, sid, api.StateDone); rec.Status != api.StatusCancelled {
		t.Errorf("call = %+v, want cancelled", rec)
	}

	a := receive(t, postAsync(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`))
	if a.err != nil || !strings.Contains(a.wire, `"id":8`) || !strings.Contains(a.wire, "hello from a") {
		t.Errorf("a call nobody cancelled got %q (%v), want its answer", a.wire, a.err)
	}
}
