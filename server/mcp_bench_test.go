package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
	"github.com/toolgate/toolgate/handlers/mcpcontent"
	"github.com/toolgate/toolgate/internal/mcphub"
)

// BenchmarkMCPThroughToolgate calls the MCP test server's echo tool
// through toolgate and the same server binary directly with go-sdk's
// client, at 1 and 16 concurrent callers, and reports the latency of each
// and their ratio. Through toolgate goes two ways: POST /v1/tool_use as
// mcp__test__echo ("ratio") and POST /v1/sessions/{sid}/messages with a
// use_mcp_tool block ("msg-ratio"); echo is auto-approved. A fourth way,
// the floor, is a bare net/http handler that decodes the block, calls the
// hub and encodes the result: what any HTTP hop in front of the server
// costs ("floor-ratio"), the part of the ratio that is not toolgate's.
// "vs-floor" and "msg-vs-floor" set toolgate's two ways against the floor;
// "cpu-vs-floor" and "msg-cpu-vs-floor" do the same by this process's CPU
// time per call.
//
//	go test -run '^$' -bench MCPThroughToolgate -benchtime 2000x -count 3 ./server
func BenchmarkMCPThroughToolgate(b *testing.B) {
	bin := mcpTestServerBin(b)
	url := benchToolgate(b, bin)
	direct := benchDirect(b, bin)
	floor := benchFloor(b, bin)
	// Keep-alive on both sides: the HTTP client keeps a connection per
	// caller, as go-sdk's client keeps its one pipe.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	sid := benchSession(b, client, url)
	var seq atomic.Int64
	// Each call echoes a text of its own, on every way alike: a real
	// agent does not repeat a call thousands of times, and toolgate's
	// loop guard would annotate results that repeat.
	viaToolUse := func(i int) error {
		var out api.ToolUseResponse
		use := api.ToolUse{Type: api.TypeToolUse, ID: fmt.Sprintf("toolu_b%d", seq.Add(1)), Name: "mcp__test__echo",
			Input: json.RawMessage(fmt.Sprintf(`{"text":"x%d"}`, i))}
		if err := benchPost(client, url+"/v1/tool_use", use, &out); err != nil {
			return err
		}
		if out.Result.IsError {
			return fmt.Errorf("call failed: %+v", out.Result)
		}
		return nil
	}
	viaMessage := func(i int) error {
		var out api.MessageResponse
		use := api.ToolUse{Type: api.TypeToolUse, ID: fmt.Sprintf("toolu_m%d", seq.Add(1)), Name: "use_mcp_tool",
			Input: json.RawMessage(fmt.Sprintf(`{"server_name":"test","tool_name":"echo","arguments":{"text":"x%d"}}`, i))}
		msg := map[string]any{"role": "assistant", "content": []any{use}}
		if err := benchPost(client, url+"/v1/sessions/"+sid+"/messages", msg, &out); err != nil {
			return err
		}
		if len(out.Message.Content) != 1 || out.Message.Content[0].IsError {
			return fmt.Errorf("call failed: %+v", out.Message)
		}
		return nil
	}
	viaFloor := func(i int) error {
		var out api.ToolUseResponse
		use := api.ToolUse{Type: api.TypeToolUse, ID: fmt.Sprintf("toolu_f%d", seq.Add(1)), Name: "mcp__test__echo",
			Input: json.RawMessage(fmt.Sprintf(`{"text":"x%d"}`, i))}
		if err := benchPost(client, floor, use, &out); err != nil {
			return err
		}
		if out.Result.IsError {
			return fmt.Errorf("call failed: %+v", out.Result)
		}
		return nil
	}
	viaDirect := func(i int) error {
		res, err := direct.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": fmt.Sprintf("x%d", i)}})
		if err == nil && res.IsError {
			err = fmt.Errorf("call failed")
		}
		return err
	}
	ways := []func(int) error{viaDirect, viaToolUse, viaMessage, viaFloor}
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			// Short turns, each way in turn and in a rotating order, so that
			// a burst of load from elsewhere on the machine weighs on every
			// way alike. A turn gives each caller several calls, so that
			// ramping up and down is a small part of it.
			turn := max(8*callers, 40)
			rounds := max(b.N/turn, 1)
			took := make([]time.Duration, len(ways))
			cpu := make([]time.Duration, len(ways))
			for r := range rounds {
				for k := range ways {
					w := (r + k) % len(ways)
					c0 := processCPU()
					took[w] += benchRun(b, callers, turn, ways[w])
					cpu[w] += processCPU() - c0
				}
			}
			calls := float64(turn * rounds)
			b.ReportMetric(float64(took[0].Microseconds())/calls, "direct-µs/call")
			b.ReportMetric(float64(took[1].Microseconds())/calls, "toolgate-µs/call")
			b.ReportMetric(float64(took[2].Microseconds())/calls, "message-µs/call")
			b.ReportMetric(float64(took[1])/float64(took[0]), "ratio")
			b.ReportMetric(float64(took[2])/float64(took[0]), "msg-ratio")
			b.ReportMetric(float64(took[3].Microseconds())/calls, "floor-µs/call")
			b.ReportMetric(float64(took[3])/float64(took[0]), "floor-ratio")
			// toolgate against the floor: what toolgate adds beyond an HTTP hop.
			b.ReportMetric(float64(took[1])/float64(took[3]), "vs-floor")
			b.ReportMetric(float64(took[2])/float64(took[3]), "msg-vs-floor")
			// The same by this process's CPU time per call (client, server
			// and hub; the MCP servers' processes left out), which other
			// load on the machine disturbs less than wall time.
			b.ReportMetric(float64(cpu[1])/float64(cpu[3]), "cpu-vs-floor")
			b.ReportMetric(float64(cpu[2])/float64(cpu[3]), "msg-cpu-vs-floor")
		})
	}
}

// benchPost posts v as JSON with the token and decodes the answer into out.
func benchPost(client *http.Client, url string, v, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: status %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return err
	}
	// Reading to the end lets the transport reuse the connection.
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// benchSession creates the session the message way posts to.
func benchSession(b *testing.B, client *http.Client, url string) string {
	b.Helper()
	var sess api.Session
	if err := benchPost(client, url+"/v1/sessions", map[string]any{"mode": "act"}, &sess); err != nil {
		b.Fatal(err)
	}
	return sess.ID
}

// benchRun makes n calls spread over callers goroutines and returns the
// wall time they took.
func benchRun(b *testing.B, callers, n int, call func(int) error) time.Duration {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	start := time.Now()
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < n; i += callers {
				if err := call(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return elapsed
}

// benchToolgate starts toolgate with the test server as "test".
func benchToolgate(b *testing.B, bin string) string {
	b.Helper()
	hub := mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{
		"test": {Command: bin, AutoApprove: []string{"echo"}},
	}}, mcphub.Options{})
	hub.Start(context.Background())
	b.Cleanup(hub.Close)
	ws, err := tool.OpenWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	reg := prometheus.NewRegistry()
	coord := coordinator.New(coordinator.Options{Config: coordinator.DefaultConfig(), Workspace: ws, Tools: handlers.Default(), Registerer: reg, MCP: hub})
	ts := httptest.NewServer(New(discardLogger(), coord, reg, Config{Token: testToken}))
	b.Cleanup(func() { coord.Close(); ts.Close() })
	awaitHub(b, hub)
	return ts.URL
}

// benchDirect connects go-sdk's client to its own process of the server.
func benchDirect(b *testing.B, bin string) *mcp.ClientSession {
	b.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cmd := exec.Command(bin)
	cmd.Env = os.Environ()
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// benchFloor serves the floor way: one tool_use block in, the hub's
// result out, nothing else. It has its own process of the server, as the
// other ways do.
func benchFloor(b *testing.B, bin string) string {
	b.Helper()
	hub := mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{"test": {Command: bin}}}, mcphub.Options{})
	hub.Start(context.Background())
	b.Cleanup(hub.Close)
	awaitHub(b, hub)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var use api.ToolUse
		var args map[string]any
		if err := json.NewDecoder(r.Body).Decode(&use); err != nil || json.Unmarshal(use.Input, &args) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		res, err := hub.CallTool(r.Context(), "test", "echo", args, nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.ToolUseResponse{Result: api.ToolResult{
			Type: api.TypeToolResult, ToolUseID: use.ID, Content: mcpcontent.Blocks(res), IsError: res.IsError}})
	}))
	b.Cleanup(ts.Close)
	return ts.URL
}

// awaitHub waits until the hub lists the test server's tools.
func awaitHub(b *testing.B, hub *mcphub.Hub) {
	b.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for len(hub.Tools()) == 0 {
		if time.Now().After(deadline) {
			b.Fatalf("test server never connected: %+v", hub.Servers())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
