package server

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/testproc"
)

// backgroundUse is execute_command with background: true.
func backgroundUse(id, command string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": "execute_command",
		"input": map[string]any{"command": command, "requires_approval": false, "background": true}}
}

// waitGone polls until no process holds marker, failing after d.
func waitGone(t *testing.T, marker string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		left := testproc.Matching(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q still alive %s later: %v", marker, d, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBackgroundJobs(t *testing.T) {
	s := newExecServer(t)
	sid := s.session(t)
	post := func(use map[string]any) api.ToolResult {
		t.Helper()
		resp := decodeJSON[api.MessageResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages", message(use), ""), http.StatusOK)
		return resp.Message.Content[0]
	}
	marker := fmt.Sprintf("%d.%d", 2000+os.Getpid()%1000, time.Now().UnixNano()%1000)
	res := post(backgroundUse("bg1", "echo serving; sleep "+marker))
	if res.IsError || !strings.Contains(resultText(res), "job_1") {
		t.Fatalf("start: %+v", res)
	}

	t.Run("listed and its output readable while it runs", func(t *testing.T) {
		list := decodeJSON[api.JobList](t, s.request(t, t.Context(), "GET", "/v1/sessions/"+sid+"/jobs", nil, ""), http.StatusOK)
		if len(list.Jobs) != 1 || list.Jobs[0].ID != "job_1" || list.Jobs[0].State != api.JobRunning || list.Jobs[0].ToolUseID != "bg1" {
			t.Fatalf("jobs = %+v", list.Jobs)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			out := decodeJSON[api.JobOutput](t, s.request(t, t.Context(), "GET", "/v1/sessions/"+sid+"/jobs/job_1/output?offset=0", nil, ""), http.StatusOK)
			if out.Output == "serving\n" && out.NextOffset == int64(len("serving\n")) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("output = %+v", out)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(testproc.Matching("sleep "+marker)) == 0 {
			t.Fatal("the job is not running after its call ended")
		}
	})
	t.Run("bad offset", func(t *testing.T) {
		resp := s.request(t, t.Context(), "GET", "/v1/sessions/"+sid+"/jobs/job_1/output?offset=-3", nil, "")
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	t.Run("killed on request", func(t *testing.T) {
		job := decodeJSON[api.Job](t, s.request(t, t.Context(), "DELETE", "/v1/sessions/"+sid+"/jobs/job_1", nil, ""), http.StatusOK)
		if job.State != api.JobKilled || job.EndedAt == nil {
			t.Fatalf("job after kill = %+v", job)
		}
		waitGone(t, "sleep "+marker, 2*time.Second)
	})
	t.Run("unknown job", func(t *testing.T) {
		resp := s.request(t, t.Context(), "GET", "/v1/sessions/"+sid+"/jobs/job_9", nil, "")
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	t.Run("ends with the session", func(t *testing.T) {
		other := s.session(t)
		resp := decodeJSON[api.MessageResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+other+"/messages",
			message(backgroundUse("bg2", "sleep "+marker+"1")), ""), http.StatusOK)
		if resp.Message.Content[0].IsError {
			t.Fatalf("start: %+v", resp.Message.Content[0])
		}
		del := s.request(t, t.Context(), "DELETE", "/v1/sessions/"+other, nil, "")
		del.Body.Close()
		waitGone(t, "sleep "+marker+"1", 2*time.Second)
	})
}

// resultText joins a tool_result's text blocks.
func resultText(r api.ToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}
