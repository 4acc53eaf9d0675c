package cline

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Turn is one answer of the mock model: a tool call, either as Cline's XML
// text (Text) or as a native tool call (Tool and Args, JSON).
type Turn struct {
	Text string
	Tool string
	Args string
}

// mockModel is an OpenAI-compatible Chat Completions endpoint on
// loopback that plays a script and records every request. The turn it
// answers is the number of assistant messages in the request, so a
// retried request gets the same answer and never skips a step; past the
// script it answers done (the task's end).
type mockModel struct {
	URL   string
	srv   *http.Server
	ln    net.Listener
	turns []Turn
	done  Turn

	mu       sync.Mutex
	requests []chatRequest
}

// chatRequest is the part of a Chat Completions request the harness reads.
type chatRequest struct {
	Model    string          `json:"model"`
	Messages []chatMessage   `json:"messages"`
	Tools    json.RawMessage `json:"tools,omitempty"`
	// At is when the request came, for the run's timing.
	At time.Time `json:"-"`
}

// chatMessage is one message of a request; content is a string or a list
// of parts.
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
}

// texts are the message's text parts (its content when that is a string).
func (m chatMessage) texts() []string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var out []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			out = append(out, p.Text)
		default:
			out = append(out, "<"+p.Type+" block>")
		}
	}
	return out
}

func startMock(turns []Turn, done Turn) (*mockModel, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &mockModel{ln: ln, turns: turns, done: done, URL: "http://" + ln.Addr().String() + "/v1"}
	m.srv = &http.Server{Handler: m}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

func (m *mockModel) close() { _ = m.srv.Close() }

// ServeHTTP answers chat completions with the script's next turn,
// streamed, and anything else (model lists) with an empty list.
func (m *mockModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[]}`)
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			n++
		}
	}
	req.At = time.Now()
	m.mu.Lock()
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	turn := m.done
	if n < len(m.turns) {
		turn = m.turns[n]
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1,
			"model": req.Model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	finish := "stop"
	if turn.Tool != "" {
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", n),
			"type": "function", "function": map[string]any{"name": turn.Tool, "arguments": turn.Args}}}}, nil)
		finish = "tool_calls"
	} else {
		chunk(map[string]any{"role": "assistant", "content": turn.Text}, nil)
	}
	chunk(map[string]any{}, finish)
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1, "model": req.Model,
		"choices": []any{}, "usage": map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
}

// Requests is every chat request so far, in arrival order.
func (m *mockModel) Requests() []chatRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]chatRequest(nil), m.requests...)
}

// results maps each turn of the script to what Cline sent back after it:
// the messages after the last assistant message of the first request that
// holds turn+1 assistant messages. A turn Cline never answered is absent.
func (m *mockModel) results() map[int][]chatMessage {
	out := map[int][]chatMessage{}
	for _, req := range m.Requests() {
		n, last := 0, -1
		for i, msg := range req.Messages {
			if msg.Role == "assistant" {
				n, last = n+1, i
			}
		}
		if n == 0 || out[n-1] != nil {
			continue
		}
		out[n-1] = req.Messages[last+1:]
	}
	return out
}
