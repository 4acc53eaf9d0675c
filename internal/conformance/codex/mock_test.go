package codex

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// step is one call the mock model makes, in a turn of its own: a function
// call (Args its JSON arguments) or a custom tool call (Input its text).
type step struct {
	Name  string
	Args  string
	Input string
}

// runningSession finds the session ids of running commands in an
// exec_command or write_stdin output (or a request holding them).
var runningSession = regexp.MustCompile(`Process running with session ID (\d+)`)

// withSession is the step with $SESSION in its arguments replaced by the
// last running session named in text: the session id is the runner's
// (Codex's, toolgate's), known only once the command runs.
func (s step) withSession(text string) step {
	if !strings.Contains(s.Args, "$SESSION") {
		return s
	}
	m := runningSession.FindAllStringSubmatch(text, -1)
	id := "0"
	if len(m) > 0 {
		id = m[len(m)-1][1]
	}
	s.Args = strings.ReplaceAll(s.Args, "$SESSION", id)
	return s
}

// item is the Responses output item of the step with call id id.
func (s step) item(id string) map[string]any {
	if s.Input != "" {
		return map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": id, "name": s.Name, "input": s.Input, "status": "completed"}
	}
	return map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": s.Name, "arguments": s.Args, "status": "completed"}
}

// mock is a Responses API that answers the n-th request with the n-th
// step's call, then with a closing message, and keeps every request body.
type mock struct {
	URL      string
	steps    []step
	mu       sync.Mutex
	requests []json.RawMessage
	srv      *http.Server
}

// newMock serves the steps on 127.0.0.1 until Close.
func newMock(steps []step) (*mock, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &mock{URL: "http://" + ln.Addr().String() + "/v1", steps: steps}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve)}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// close stops the server.
func (m *mock) close() { _ = m.srv.Close() }

// bodies are the bodies of the requests so far.
func (m *mock) bodies() []json.RawMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]json.RawMessage(nil), m.requests...)
}

// callID is the call id of step n.
func callID(n int) string { return fmt.Sprintf("call_%02d", n+1) }

// serve streams one turn as the Responses API's server-sent events
// (response.created, response.output_item.done per item,
// response.completed), the events Codex reads.
func (m *mock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		http.NotFound(w, r)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, body)
	turn := len(m.requests) - 1
	m.mu.Unlock()
	items := []any{map[string]any{"type": "message", "role": "assistant", "id": "msg_end",
		"content": []any{map[string]any{"type": "output_text", "text": "done", "annotations": []any{}}}}}
	if turn < len(m.steps) {
		items = []any{m.steps[turn].withSession(string(body)).item(callID(turn))}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", turn+1)
	send := func(typ string, fields map[string]any) {
		fields["type"] = typ
		data, _ := json.Marshal(fields)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data)
	}
	send("response.created", map[string]any{"response": map[string]any{"id": id}})
	for _, it := range items {
		send("response.output_item.done", map[string]any{"item": it})
	}
	send("response.completed", map[string]any{"response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}})
}

// outputs reads, from the requests that followed each step, the output
// item Codex sent back for it: its type and its output (a string, or a
// list of content items), by step.
func outputs(requests []json.RawMessage, steps int) []output {
	out := make([]output, steps)
	for _, body := range requests {
		var req struct {
			Input []struct {
				Type   string          `json:"type"`
				CallID string          `json:"call_id"`
				Output json.RawMessage `json:"output"`
			} `json:"input"`
		}
		if json.Unmarshal(body, &req) != nil {
			continue
		}
		for _, it := range req.Input {
			for n := range steps {
				if it.CallID == callID(n) && (it.Type == "function_call_output" || it.Type == "custom_tool_call_output") {
					out[n] = output{Type: it.Type, Output: it.Output}
				}
			}
		}
	}
	return out
}

// output is one call's output item.
type output struct {
	Type   string          `json:"type"`
	Output json.RawMessage `json:"output"`
}

// text is the output as text: the string, or its items joined, a text
// item's text as it is and any other item (an image) as its JSON with
// sorted keys, so that an image's bytes compare too.
func (o output) text() string {
	var s string
	if json.Unmarshal(o.Output, &s) == nil {
		return s
	}
	var items []map[string]any
	_ = json.Unmarshal(o.Output, &items)
	var b []byte
	for _, it := range items {
		if text, ok := it["text"].(string); ok {
			b = append(b, text...)
			continue
		}
		raw, _ := json.Marshal(it)
		b = append(b, raw...)
	}
	return string(b)
}
