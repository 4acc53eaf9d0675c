package claudecode

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/conformance"
)

// call is one scripted tool_use: the tool's name and its input, whose
// string values may hold placeholders the driver fills in per side
// (the workspace path, an id an earlier result named).
type call struct {
	name  string
	input map[string]any
	// note says what the call provokes, for the diff listing.
	note string
}

// mockModel is an Anthropic Messages API on loopback that plays a script
// to Claude Code: the answer to its n-th main-loop request is the n-th
// call of the script as one tool_use block, and once the script is done,
// a text that ends the turn. It records the tools Claude Code offers and
// every tool_result it sends back.
type mockModel struct {
	srv    *httptest.Server
	marker string
	// next gives the input of script call i, filled in from the results
	// recorded so far; ok false ends the conversation.
	next func(i int) (name string, input map[string]any, ok bool)

	mu      sync.Mutex
	tools   json.RawMessage               // the first main request's tools
	results map[string]conformance.Result // by tool_use id
	side    int                           // side requests answered
	unknown []string
	helper  func(prompt string) string
	// dump, when set, gets every Messages request body (for debugging).
	dump func(body []byte)
}

// newMockModel starts the mock. marker is the prompt Claude Code is
// started with: a request whose first user message holds it is the main
// loop; anything else (title generation, a WebFetch summary, a quota
// check) is a side request. helper answers a side request's last user
// text.
func newMockModel(marker string, next func(int) (string, map[string]any, bool), helper func(string) string) *mockModel {
	m := &mockModel{marker: marker, next: next, results: map[string]conformance.Result{}, helper: helper}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	return m
}

func (m *mockModel) close() { m.srv.Close() }

// messagesRequest is the part of a Messages API request the mock reads.
type messagesRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	Tools    json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// block is a content block of a request message.
type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
	conformance.Result
}

// blocks reads a message's content, a string or a list of blocks.
func blocks(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var out []block
	_ = json.Unmarshal(raw, &out)
	return out
}

func (m *mockModel) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		io.Copy(io.Discard, r.Body)
		writeJSON(w, map[string]any{"input_tokens": 100})
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
	default:
		m.mu.Lock()
		m.unknown = append(m.unknown, r.Method+" "+r.URL.Path)
		m.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req messagesRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if m.dump != nil {
		m.dump(body)
	}
	if err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	first := blocks(req.Messages[0].Content)
	main := len(req.Tools) > 2 && len(first) > 0 && containsText(first, m.marker)
	if !main {
		m.mu.Lock()
		m.side++
		m.mu.Unlock()
		last := blocks(req.Messages[len(req.Messages)-1].Content)
		text := ""
		if m.helper != nil {
			text = m.helper(allText(last))
		}
		answerText(w, req, text)
		return
	}
	turn := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			turn++
		}
	}
	m.mu.Lock()
	if m.tools == nil {
		m.tools = req.Tools
	}
	// Every message, not just the last: Claude Code may follow a result
	// with a message of its own (a reminder to the model).
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			m.record(msg.Content)
		}
	}
	m.mu.Unlock()
	name, input, ok := m.next(turn)
	if !ok {
		answerText(w, req, "The script is done.")
		return
	}
	answerToolUse(w, req, toolUseID(turn), name, input)
}

// record keeps a user message's tool_results, by id. A document or an
// image block that follows a tool_result in the message is counted as
// part of that result (a rule of the comparison): Claude Code's Read of
// a PDF answers with a line in the tool_result and sends the PDF itself
// as a block beside it, where toolgate's result carries both.
func (m *mockModel) record(content json.RawMessage) {
	var raw []json.RawMessage
	if json.Unmarshal(content, &raw) != nil {
		return
	}
	last := ""
	for i, b := range blocks(content) {
		switch {
		case b.Type == "tool_result":
			last = b.ToolUseID
			m.results[last] = b.Result
		case last != "" && (b.Type == "document" || b.Type == "image"):
			r := m.results[last]
			r.Content = appendBlock(r.Content, raw[i])
			m.results[last] = r
		default:
			last = ""
		}
	}
}

// appendBlock adds a block to a tool_result's content, a string or a
// list of blocks.
func appendBlock(content, block json.RawMessage) json.RawMessage {
	var list []json.RawMessage
	var s string
	if json.Unmarshal(content, &s) == nil {
		text, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		list = []json.RawMessage{text}
	} else {
		_ = json.Unmarshal(content, &list)
	}
	out, _ := json.Marshal(append(list, block))
	return out
}

// toolUseID names script call i, the same on both sides.
func toolUseID(i int) string { return fmt.Sprintf("toolu_%03d", i) }

func containsText(bs []block, s string) bool {
	for _, b := range bs {
		if b.Type == "text" && strings.Contains(b.Text, s) {
			return true
		}
	}
	return false
}

func allText(bs []block) string {
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// offered is the tools array of the first main request: read under the
// lock, as a late side request may still be served when the CLI exits.
func (m *mockModel) offered() json.RawMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tools
}

func (m *mockModel) result(id string) (conformance.Result, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.results[id]
	return r, ok
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// answerText answers with one text block that ends the turn.
func answerText(w http.ResponseWriter, req messagesRequest, text string) {
	if !req.Stream {
		writeJSON(w, map[string]any{"id": "msg_text", "type": "message", "role": "assistant", "model": req.Model,
			"content":     []any{map[string]any{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil, "usage": usage()})
		return
	}
	s := startStream(w, req, "msg_text")
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "text_delta", "text": text}})
	s.end("end_turn")
}

// answerToolUse answers with one tool_use block, its input streamed as
// input_json_delta in two pieces as a model streams it.
func answerToolUse(w http.ResponseWriter, req messagesRequest, id, name string, input map[string]any) {
	js, _ := json.Marshal(input)
	if !req.Stream {
		writeJSON(w, map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": req.Model,
			"content":     []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}},
			"stop_reason": "tool_use", "stop_sequence": nil, "usage": usage()})
		return
	}
	s := startStream(w, req, "msg_"+id)
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}})
	half := len(js) / 2
	for _, part := range []string{string(js[:half]), string(js[half:])} {
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
	}
	s.end("tool_use")
}

func usage() map[string]any { return map[string]any{"input_tokens": 10, "output_tokens": 10} }

type sseWriter struct{ w http.ResponseWriter }

func startStream(w http.ResponseWriter, req messagesRequest, id string) sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	s := sseWriter{w}
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage()}})
	return s
}

func (s sseWriter) event(name string, data any) {
	js, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, js)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s sseWriter) end(stop string) {
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}
