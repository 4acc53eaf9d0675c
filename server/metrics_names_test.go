package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// gatherOne finds the series of a metric with exactly these labels.
func gatherOne(t *testing.T, f *fixture, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	mfs, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue next
				}
			}
			return m
		}
	}
	return nil
}

// TestMetricsUseTheNamesClientsCall: a Claude Code session's Read is
// counted as tool="Read", dialect="claude_code" (not the registry tool it
// maps onto), and an anthropic session's editor under its own name; the
// dialects' tools have series at zero before any call.
func TestMetricsUseTheNamesClientsCall(t *testing.T) {
	f := newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "one\n"}, server: Config{Token: flowToken},
		config: coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}})
	zero := gatherOne(t, f, "toolgate_tool_calls_total", map[string]string{"tool": "Edit", "dialect": "claude_code", "status": "succeeded"})
	if zero == nil || zero.GetCounter().GetValue() != 0 {
		t.Fatalf("Edit's series before any call = %v, want present at zero", zero)
	}
	for _, c := range []struct{ dialect, tool string }{{"claude_code", "Read"}, {"anthropic", "str_replace_based_edit_tool"}} {
		status, body := send(t, f, flowToken, "POST", "/v1/sessions", map[string]any{"dialect": c.dialect})
		if status != http.StatusCreated {
			t.Fatalf("session: %d %s", status, body)
		}
		var sess api.Session
		_ = json.Unmarshal(body, &sess)
		input := map[string]any{"file_path": f.dir + "/a.txt"}
		if c.dialect == "anthropic" {
			input = map[string]any{"command": "view", "path": "a.txt"}
		}
		if status, body := send(t, f, flowToken, "POST", "/v1/sessions/"+sess.ID+"/messages",
			assistant(toolUse("toolu_"+c.dialect, c.tool, input))); status != http.StatusOK {
			t.Fatalf("%s: %d %s", c.tool, status, body)
		}
		m := gatherOne(t, f, "toolgate_tool_calls_total", map[string]string{"tool": c.tool, "dialect": c.dialect, "status": "succeeded"})
		if m == nil || m.GetCounter().GetValue() != 1 {
			t.Errorf("toolgate_tool_calls_total{tool=%q,dialect=%q,status=succeeded} = %v, want 1", c.tool, c.dialect, m)
		}
	}
	if m := gatherOne(t, f, "toolgate_tool_calls_total", map[string]string{"tool": "read_file", "dialect": "claude_code", "status": "succeeded"}); m.GetCounter().GetValue() != 0 {
		t.Errorf("a Claude Code Read was counted under read_file")
	}
	// What a Prometheus scrape of /metrics gets.
	status, scrape := send(t, f, flowToken, "GET", "/metrics", nil)
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d", status)
	}
	for _, want := range []string{
		`toolgate_tool_calls_total{dialect="claude_code",status="succeeded",tool="Read"} 1`,
		`toolgate_tool_calls_total{dialect="anthropic",status="succeeded",tool="str_replace_based_edit_tool"} 1`,
		`toolgate_tool_call_duration_seconds_count{dialect="claude_code",tool="Read"} 1`,
	} {
		if !strings.Contains(string(scrape), want+"\n") {
			t.Errorf("the scrape lacks %s", want)
		}
	}
}

// TestToolLatencyLeavesOutTheApprovalWait: the duration histogram times
// the call without its wait for a decision, so its sum is less than the
// call's whole duration (which the record keeps); before, they were the
// same number.
func TestToolLatencyLeavesOutTheApprovalWait(t *testing.T) {
	f := scopeServer(t)
	done := make(chan []byte, 1)
	go func() {
		_, body := send(t, f, flowToken, "POST", "/v1/sessions/default/messages", assistant(
			toolUse("toolu_lat", "write_to_file", map[string]any{"path": "a.txt", "content": "x\n"})))
		done <- body
	}()
	waitAwaiting(t, f, flowToken, "toolu_lat")
	if status, body := send(t, f, aliceToken, "POST", "/v1/sessions/default/calls/toolu_lat/decision", map[string]any{"decision": "approve"}); status != http.StatusOK {
		t.Fatalf("decision: %d %s", status, body)
	}
	var resp api.MessageResponse
	select {
	case body := <-done:
		if err := json.Unmarshal(body, &resp); err != nil || len(resp.Calls) != 1 {
			t.Fatalf("message: %s", body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the approved message did not finish")
	}
	m := gatherOne(t, f, "toolgate_tool_call_duration_seconds", map[string]string{"tool": "write_to_file", "dialect": "cline"})
	if m == nil || m.GetHistogram().GetSampleCount() != 1 {
		t.Fatalf("write_to_file's histogram = %v, want one sample", m)
	}
	whole := resp.Calls[0].DurationMS / 1000
	if got := m.GetHistogram().GetSampleSum(); got >= whole {
		t.Errorf("histogram sum %.6fs, whole call %.6fs: the approval wait was counted", got, whole)
	}
}
