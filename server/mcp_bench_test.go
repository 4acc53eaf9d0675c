package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/mcphub"
	"github.com/toolgate/toolgate/handlers"
)

// BenchmarkMCPThroughToolgate calls the MCP test server's echo tool
// through POST /v1/tool_use (as mcp__test__echo, auto-approved) and the
// same server binary directly with go-sdk's client, at 1 and 16
// concurrent callers, and reports the latency of each and their ratio.
//
//	go test -run '^$' -bench MCPThroughToolgate -benchtime 2000x ./server
func BenchmarkMCPThroughToolgate(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "testserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../coordinator/mcphub/testdata/testserver").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	url := benchToolgate(b, bin)
	direct := benchDirect(b, bin)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var seq atomic.Int64
	viaToolgate := func(int) error {
		body, _ := json.Marshal(api.ToolUse{Type: api.TypeToolUse, ID: fmt.Sprintf("toolu_b%d", seq.Add(1)), Name: "mcp__test__echo", Input: json.RawMessage(`{"text":"x"}`)})
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/tool_use", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var out api.ToolUseResponse
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			return err
		}
		if out.Result.IsError {
			return fmt.Errorf("call failed: %+v", out.Result)
		}
		return nil
	}
	viaDirect := func(int) error {
		res, err := direct.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
		if err == nil && res.IsError {
			err = fmt.Errorf("call failed")
		}
		return err
	}
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			// Rounds alternate the two ways so that load from elsewhere
			// on the machine weighs on both alike.
			var d, tg time.Duration
			const rounds = 10
			per := max(b.N/rounds, 1)
			for r := range rounds {
				if r%2 == 0 {
					d += benchRun(b, callers, per, viaDirect)
					tg += benchRun(b, callers, per, viaToolgate)
				} else {
					tg += benchRun(b, callers, per, viaToolgate)
					d += benchRun(b, callers, per, viaDirect)
				}
			}
			calls := float64(per * rounds)
			b.ReportMetric(float64(d.Microseconds())/calls, "direct-µs/call")
			b.ReportMetric(float64(tg.Microseconds())/calls, "toolgate-µs/call")
			b.ReportMetric(float64(tg)/float64(d), "ratio")
		})
	}
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
	ws, err := coordinator.OpenWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	reg := prometheus.NewRegistry()
	coord := coordinator.New(coordinator.Options{Config: coordinator.DefaultConfig(), Workspace: ws, Tools: handlers.Default(), Registerer: reg, MCP: hub})
	ts := httptest.NewServer(New(discardLogger(), coord, reg, Config{Token: testToken}))
	b.Cleanup(func() { coord.Close(); ts.Close() })
	deadline := time.Now().Add(15 * time.Second)
	for len(hub.Tools()) == 0 {
		if time.Now().After(deadline) {
			b.Fatalf("test server never connected: %+v", hub.Servers())
		}
		time.Sleep(10 * time.Millisecond)
	}
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
