package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// runnerRequest is the body toolgate POSTs to an HTTP subagent runner.
type runnerRequest struct {
	Agent        string `json:"agent"`
	SystemPrompt string `json:"system_prompt"`
	Prompt       string `json:"prompt"`
	ToolgateURL  string `json:"toolgate_url"`
	Token        string `json:"token"`
	SessionID    string `json:"session_id"`
}

// httpRunner is an HTTP subagent runner that acts by its prompt: "work"
// calls back into toolgate with its scoped token (a read, a write) and
// streams its answer in two chunks, the second only once the test saw
// the first; "events" answers as an event stream; "fail" answers 500;
// "redirect" answers 302;
// "echo" names its agent and system prompt; "hang" waits until its
// request ends.
type httpRunner struct {
	requests chan runnerRequest
	headers  chan http.Header
	release  chan struct{} // closed by the test: send the second chunk
	ended    chan struct{} // a "hang" request's context ended
}

func newHTTPRunner(t *testing.T) (*httpRunner, string) {
	t.Helper()
	hr := &httpRunner{requests: make(chan runnerRequest, 8), headers: make(chan http.Header, 8),
		release: make(chan struct{}), ended: make(chan struct{}, 8)}
	ts := httptest.NewServer(hr)
	t.Cleanup(ts.Close)
	return hr, ts.URL
}

func (hr *httpRunner) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in runnerRequest
	_ = json.NewDecoder(r.Body).Decode(&in)
	hr.requests <- in
	hr.headers <- r.Header.Clone()
	flush := func() { w.(http.Flusher).Flush() }
	switch in.Prompt {
	case "work":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "agent=%s system=%s\n", in.Agent, in.SystemPrompt)
		flush()
		fmt.Fprintln(w, callBack(in))
		select {
		case <-hr.release:
		case <-r.Context().Done():
			return
		case <-time.After(10 * time.Second):
		}
		fmt.Fprintln(w, "done")
	case "events":
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: thinking\n\ndata: still\ndata: thinking\n\nevent: result\ndata: the final answer\n\n")
	case "echo":
		fmt.Fprintf(w, "agent=%s system=%s", in.Agent, in.SystemPrompt)
	case "fail":
		http.Error(w, "runner broke", http.StatusInternalServerError)
	case "redirect":
		http.Redirect(w, r, "/moved", http.StatusFound)
	case "hang":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "started\n")
		flush()
		<-r.Context().Done()
		hr.ended <- struct{}{}
	}
}

// callBack posts a read and a write to the runner's child session with
// its scoped token and returns what toolgate said about each.
func callBack(in runnerRequest) string {
	msg := `{"role":"assistant","content":[{"type":"tool_use","id":"r1","name":"read_file","input":{"path":"a.txt"}},` +
		`{"type":"tool_use","id":"w1","name":"write_to_file","input":{"path":"b.txt","content":"x"}}]}`
	req, _ := http.NewRequest(http.MethodPost, in.ToolgateURL+"/v1/sessions/"+in.SessionID+"/messages", strings.NewReader(msg))
	req.Header.Set("Authorization", "Bearer "+in.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := testHTTP.Do(req)
	if err != nil {
		return "callback failed: " + err.Error()
	}
	defer resp.Body.Close()
	var out api.MessageResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return fmt.Sprintf("callback answered %d", resp.StatusCode)
	}
	var b bytes.Buffer
	for _, res := range out.Message.Content {
		fmt.Fprintf(&b, "%s: %s\n", res.ToolUseID, texts(res))
	}
	return b.String()
}

func TestHTTPSubagentRunner(t *testing.T) {
	hr, runnerURL := newHTTPRunner(t)
	f, agents := newSubagentServerWith(t, coordinator.SubagentConfig{URL: runnerURL, Headers: map[string]string{"X-Api-Key": "k1"}})
	writeAgent(t, agents, "reader.md", "name: reader\ndescription: Reads code", "You only read.")
	sid := f.session(t, api.Permissions{})
	ask := func(t *testing.T, id, prompt string) <-chan api.Event {
		t.Helper()
		return f.sseMessage(t, sid, toolUse(id, "use_subagent_reader", map[string]any{"prompt": prompt}))
	}

	t.Run("posts the job, streams the answer, the callback passes the child's policy", func(t *testing.T) {
		ch := ask(t, "h1", "work")
		first := next(t, ch, api.EventToolOutput)
		if !strings.Contains(first.Chunk, "agent=reader system=You only read.") {
			t.Errorf("first output = %q, want the runner's first chunk", first.Chunk)
		}
		close(hr.release)
		ev := next(t, ch, api.EventToolFinished)
		out := texts(*ev.Result)
		for _, want := range []string{"agent=reader", "r1: old", "w1: The tool execution failed with the following error:\n<error>\nDenied: denied by deny rule \"write_to_file\"", "done"} {
			if !strings.Contains(out, want) {
				t.Errorf("result lacks %q:\n%s", want, out)
			}
		}
		if _, err := os.Stat(filepath.Join(f.dir, "b.txt")); !os.IsNotExist(err) {
			t.Errorf("the subagent wrote b.txt (stat err %v)", err)
		}
		req, h := receive(t, hr.requests), receive(t, hr.headers)
		if req.Agent != "reader" || req.Prompt != "work" || req.ToolgateURL != f.url || !strings.HasPrefix(req.Token, "tgs_") || req.SessionID == "" {
			t.Errorf("runner request = %+v, want agent reader, prompt work, toolgate_url %s, a scoped token and a session", req, f.url)
		}
		if got := h.Get("X-Api-Key"); got != "k1" {
			t.Errorf("X-Api-Key = %q, want k1", got)
		}
		if got := h.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type = %q, want application/json", got)
		}
	})
	t.Run("an event stream: data streams, a result event is the answer", func(t *testing.T) {
		ch := ask(t, "h2", "events")
		var outputs []string
		var ev api.Event
		for ev = range ch {
			if ev.Type == api.EventToolOutput {
				outputs = append(outputs, ev.Chunk)
			}
			if ev.Type == api.EventToolFinished {
				break
			}
		}
		receive(t, hr.requests)
		receive(t, hr.headers)
		if got, want := strings.Join(outputs, "|"), "thinking|still\nthinking"; got != want {
			t.Errorf("outputs = %q, want %q", got, want)
		}
		if ev.Result == nil || texts(*ev.Result) != "the final answer\n" {
			t.Errorf("result = %+v, want the final answer", ev.Result)
		}
	})
	t.Run("an error status fails the call", func(t *testing.T) {
		ev := next(t, ask(t, "h3", "fail"), api.EventToolFinished)
		receive(t, hr.requests)
		receive(t, hr.headers)
		if ev.Call.Status != api.StatusFailed || !strings.Contains(texts(*ev.Result), "runner broke") {
			t.Errorf("got %s %q, want failed with the runner's message", ev.Call.Status, texts(*ev.Result))
		}
	})
	t.Run("a redirect is not followed", func(t *testing.T) {
		// Following it would turn the POST into a GET without the job.
		ev := next(t, ask(t, "h5", "redirect"), api.EventToolFinished)
		receive(t, hr.requests)
		receive(t, hr.headers)
		if ev.Call.Status != api.StatusFailed || !strings.Contains(texts(*ev.Result), "302") {
			t.Errorf("got %s %q, want failed naming the 302", ev.Call.Status, texts(*ev.Result))
		}
		select {
		case r := <-hr.requests:
			t.Errorf("the redirect was followed: a second request %+v", r)
		default:
		}
	})
	t.Run("an interrupt cancels the run", func(t *testing.T) {
		ch := ask(t, "h4", "hang")
		next(t, ch, api.EventToolOutput)
		if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/interrupt", nil, nil); code != http.StatusOK {
			t.Fatalf("interrupt: got %d, want 200", code)
		}
		ev := next(t, ch, api.EventToolFinished)
		receive(t, hr.requests)
		receive(t, hr.headers)
		receive(t, hr.ended)
		if ev.Call.Status != api.StatusCancelled || !strings.Contains(texts(*ev.Result), "started") {
			t.Errorf("got %s %q, want cancelled keeping the output so far", ev.Call.Status, texts(*ev.Result))
		}
	})
}

func TestHTTPSubagentRunnerTimeout(t *testing.T) {
	hr, runnerURL := newHTTPRunner(t)
	f, agents := newSubagentServerWith(t, coordinator.SubagentConfig{URL: runnerURL, Timeout: coordinator.Duration(200 * time.Millisecond)})
	writeAgent(t, agents, "reader.md", "name: reader", "")
	sid := f.session(t, api.Permissions{})
	ev := next(t, f.sseMessage(t, sid, toolUse("t1", "use_subagent_reader", map[string]any{"prompt": "hang"})), api.EventToolFinished)
	receive(t, hr.ended)
	if ev.Call.Status != api.StatusFailed || !strings.Contains(texts(*ev.Result), "timed out after 200ms") {
		t.Errorf("got %s %q, want failed by the timeout", ev.Call.Status, texts(*ev.Result))
	}
}
