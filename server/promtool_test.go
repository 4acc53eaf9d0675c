package server

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMetricsPassPromtool scrapes /metrics after some traffic and runs the
// real promtool over it: names, help, types and units must all pass lint.
func TestMetricsPassPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is required in CI (apt-get install prometheus)")
		}
		t.Skip("promtool not installed")
	}
	ts := newTestServer(t)
	decodeBody[map[string]any](t, ts.do(t, "POST", "/v1/tool_use", toolUse("p1", "echo", map[string]any{"text": "x"})), 200)
	decodeBody[map[string]any](t, ts.do(t, "POST", "/v1/tool_use", toolUse("p2", "nope", nil)), 200)
	stream := ts.do(t, "POST", "/v1/sessions/default/messages", assistant(toolUse("p3", "echo", map[string]any{"text": "y"})), "Accept", "text/event-stream")
	_, _ = io.Copy(io.Discard, stream.Body) // the stream ends with message.finished
	stream.Body.Close()
	resp, err := ts.Client().Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`toolgate_tool_calls_total{dialect="cline",status="succeeded",tool="echo"} 2`,
		`toolgate_tool_calls_total{dialect="cline",status="unknown_tool",tool="other"} 1`,
		`toolgate_tool_calls_total{dialect="cline",status="denied",tool="write"} 0`,
		`toolgate_tool_call_duration_seconds_bucket{dialect="cline",tool="echo",le="+Inf"} 2`,
		`toolgate_http_requests_total{code="200",method="POST",route="/v1/tool_use"} 2`,
		`toolgate_http_requests_total{code="200",method="POST",route="/v1/sessions/{sid}/messages"} 1`,
		`toolgate_http_request_duration_seconds_count{route="/v1/tool_use"} 2`,
		`toolgate_sse_subscribers 0`,
		`toolgate_build_info{`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
	if strings.Contains(string(body), `toolgate_http_request_duration_seconds_count{route="/v1/sessions/{sid}/messages"}`) {
		t.Error("an event stream was timed as a request")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
