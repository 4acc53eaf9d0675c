package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// progressLog collects the progress notifications an MCP client gets.
type progressLog struct {
	mu      sync.Mutex
	msgs    []string
	last    float64
	ok      bool          // every notification's progress grew
	changed chan struct{} // signalled after each notification
}

func (p *progressLog) add(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if req.Params.Progress <= p.last {
		p.ok = false
	}
	p.last = req.Params.Progress
	p.msgs = append(p.msgs, req.Params.Message)
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

// await waits until the messages so far hold every want. The client
// handles notifications on its own goroutine, so they may be handled just
// after the result they came before.
func (p *progressLog) await(t *testing.T, wants ...string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		got := p.text()
		missing := ""
		for _, w := range wants {
			if !strings.Contains(got, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		select {
		case <-p.changed:
		case <-timeout:
			t.Fatalf("progress messages = %q, want them to hold %q", got, missing)
		}
	}
}

func (p *progressLog) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.msgs, "")
}

// newAllowAllFacade serves the default tools with every call allowed, and
// returns an MCP client session on its /mcp whose progress notifications
// land in the returned log.
func newAllowAllFacade(t *testing.T) (*mcp.ClientSession, *progressLog) {
	t.Helper()
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	cfg := coordinator.DefaultConfig()
	cfg.AllowAll = true
	reg := prometheus.NewRegistry()
	coord := coordinator.New(coordinator.Options{Config: cfg, Workspace: ws, Tools: handlers.Default(), Registerer: reg})
	ts := httptest.NewServer(New(discardLogger(), coord, reg, Config{Token: testToken}))
	t.Cleanup(func() { coord.Close(); ts.Close() })
	log := &progressLog{ok: true, changed: make(chan struct{}, 1)}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: log.add})
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{testToken}}, MaxRetries: -1, DisableStandaloneSSE: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, log
}

func TestMCPFacadeProgress(t *testing.T) {
	const command = "echo first; echo second >&2; echo third"
	t.Run("output becomes progress with a token", func(t *testing.T) {
		cs, log := newAllowAllFacade(t)
		params := &mcp.CallToolParams{Name: "execute_command", Arguments: map[string]any{"command": command, "requires_approval": false}}
		params.SetProgressToken("tok-1")
		res, err := cs.CallTool(t.Context(), params)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("execute_command failed: %q", mcpText(res))
		}
		log.await(t, "first", "second", "third")
		if !log.ok {
			t.Errorf("progress values did not grow with each notification")
		}
	})
	t.Run("no progress without a token", func(t *testing.T) {
		cs, log := newAllowAllFacade(t)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "execute_command", Arguments: map[string]any{"command": command, "requires_approval": false}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || !strings.Contains(mcpText(res), "third") {
			t.Fatalf("execute_command = %q (is_error %v), want its output", mcpText(res), res.IsError)
		}
		if got := log.text(); got != "" {
			t.Errorf("progress messages = %q, want none", got)
		}
	})
}
