package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/mcphub"
)

// TestCallSpans: a message with two parallel reads, a read that waits for
// approval and an MCP call, posted with the client's traceparent, gives
// one execute_tool span per call under the client's span, stage spans
// under each call, an MCP client span under the MCP call's execute span,
// the trace context in the MCP request's _meta, and the trace id as an
// exemplar in OpenMetrics.
func TestCallSpans(t *testing.T) {
	hub := mcphub.New(mcphub.Settings{MCPServers: map[string]mcphub.ServerConfig{
		"test": {Command: mcpTestServerBin(t), AutoApprove: []string{"traceparent"}},
	}}, mcphub.Options{})
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	cfg := coordinator.DefaultConfig()
	cfg.Permissions = api.Permissions{Ask: []string{"read_file(b.txt)"}}
	f := newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "a\n", "c.txt": "c\n", "b.txt": "b\n"},
		config: cfg, mcp: hub, tracing: tp, server: Config{Token: testToken}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for len(hub.Tools()) == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("MCP test server never connected: %+v", hub.Servers())
		case <-time.After(20 * time.Millisecond):
		}
	}

	client := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}, TraceFlags: trace.FlagsSampled,
	})
	traceparent := fmt.Sprintf("00-%s-%s-01", client.TraceID(), client.SpanID())
	answer := make(chan api.MessageResponse, 1)
	go func() {
		resp := ts.do(t, "POST", "/v1/sessions/default/messages", assistant(
			toolUse("r1", "read_file", map[string]any{"path": "a.txt"}),
			toolUse("r2", "read_file", map[string]any{"path": "c.txt"}),
			toolUse("r3", "read_file", map[string]any{"path": "b.txt"}),
			toolUse("m1", "mcp__test__traceparent", map[string]any{}),
		), "traceparent", traceparent)
		answer <- decodeBody[api.MessageResponse](t, resp, 200)
	}()
	for !strings.Contains(getBody(t, ts, "/v1/sessions/default/calls?state=awaiting_approval"), "r3") {
		select {
		case <-ctx.Done():
			t.Fatal("r3 never awaited approval")
		case <-time.After(20 * time.Millisecond):
		}
	}
	decodeBody[map[string]any](t, ts.do(t, "POST", "/v1/sessions/default/calls/r3/decision", map[string]any{"decision": "approve"}), 200)
	var msg api.MessageResponse
	select {
	case msg = <-answer:
	case <-ctx.Done():
		t.Fatal("no answer")
	}

	spans := exp.GetSpans()
	byID := map[trace.SpanID]tracetest.SpanStub{}
	calls := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
		if strings.HasPrefix(s.Name, "execute_tool ") {
			for _, a := range s.Attributes {
				if a.Key == "gen_ai.tool.call.id" {
					calls[a.Value.AsString()] = s
				}
			}
		}
	}
	attr := func(s tracetest.SpanStub, key string) string {
		for _, a := range s.Attributes {
			if string(a.Key) == key {
				return a.Value.String()
			}
		}
		return ""
	}
	children := func(parent tracetest.SpanStub) map[string]tracetest.SpanStub {
		out := map[string]tracetest.SpanStub{}
		for _, s := range spans {
			if s.Parent.SpanID() == parent.SpanContext.SpanID() && s.SpanContext.TraceID() == parent.SpanContext.TraceID() {
				out[s.Name] = s
			}
		}
		return out
	}
	for _, id := range []string{"r1", "r2", "r3", "m1"} {
		s, ok := calls[id]
		if !ok {
			t.Fatalf("no execute_tool span for %s; spans: %d", id, len(spans))
		}
		if s.SpanContext.TraceID() != client.TraceID() || s.Parent.SpanID() != client.SpanID() {
			t.Errorf("%s: span is not a child of the client's span", id)
		}
		if attr(s, "gen_ai.operation.name") != "execute_tool" || attr(s, "toolgate.call.status") != "succeeded" || attr(s, "toolgate.session.id") != "default" {
			t.Errorf("%s: attributes %v", id, s.Attributes)
		}
		kids := children(s)
		for _, stage := range []string{"policy", "execute"} {
			if _, ok := kids[stage]; !ok {
				t.Errorf("%s: no %s span under the call", id, stage)
			}
		}
	}
	if calls["r1"].Name != "execute_tool read_file" || calls["m1"].Name != "execute_tool mcp__test__traceparent" {
		t.Errorf("span names %q %q", calls["r1"].Name, calls["m1"].Name)
	}
	if _, ok := children(calls["r3"])["approval wait"]; !ok {
		t.Error("the approved call has no approval wait span")
	}
	if _, ok := children(calls["r1"])["approval wait"]; ok {
		t.Error("a call nobody was asked about has an approval wait span")
	}
	if d, by := attr(calls["r3"], "toolgate.decision"), attr(calls["r3"], "toolgate.decided_by"); d != "approve" || by != "user" {
		t.Errorf("r3 decision %q by %q", d, by)
	}
	upstream, ok := children(children(calls["m1"])["execute"])["tools/call traceparent"]
	if !ok || upstream.SpanKind != trace.SpanKindClient {
		t.Fatalf("no MCP client span under the MCP call's execute span")
	}
	want := fmt.Sprintf("traceparent: 00-%s-%s-01", client.TraceID(), upstream.SpanContext.SpanID())
	if got := msg.Message.Content[3].Content[0].Text; got != want {
		t.Errorf("the MCP server saw %q, want %q", got, want)
	}

	req, _ := http.NewRequest("GET", ts.URL+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `# {trace_id="`+client.TraceID().String()+`"}`) {
		t.Errorf("no exemplar with the trace id in the OpenMetrics scrape")
	}
}

// getBody GETs an authorised path and returns its body.
func getBody(t *testing.T, ts *testServer, path string) string {
	t.Helper()
	resp := ts.do(t, "GET", path, nil)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
