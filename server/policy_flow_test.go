package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

const flowToken = "test-token-0123456789abcdef0123456789abcdef"

type flowFile struct {
	Path    string `json:"path" validate:"required"`
	Content string `json:"content"`
}

type flowCmd struct {
	Command string `json:"command" validate:"required"`
}

// flowTools are minimal file and command tools; the command tool only
// echoes, so that approvals can be tested without running anything.
func flowTools() []tool.Registration {
	return []tool.Registration{
		{Name: "read_file", Factory: func(name string, env tool.Env) *tool.Tool {
			return coordinator.NewTool(tool.Spec[flowFile]{Name: name,
				Run: func(_ context.Context, c *tool.Call, in *flowFile) (tool.Result, error) {
					b, err := c.Workspace.Root.ReadFile(in.Path)
					return tool.TextResult(string(b)), err
				},
				Paths: func(in *flowFile) []string { return []string{in.Path} }})
		}},
		{Name: "write_to_file", Factory: func(name string, env tool.Env) *tool.Tool {
			// Block-kind, as the real write_to_file: an interrupt lets it finish.
			return coordinator.NewTool(tool.Spec[flowFile]{Name: name, Writes: true, Interrupt: tool.InterruptBlock,
				Run: func(_ context.Context, c *tool.Call, in *flowFile) (tool.Result, error) {
					return tool.TextResult("written"), c.Workspace.Root.WriteFile(in.Path, []byte(in.Content), 0o644)
				},
				Preview: func(_ context.Context, c *tool.Call, in *flowFile) (string, error) {
					old, _ := c.Workspace.Root.ReadFile(in.Path)
					return udiff.Unified("a/"+in.Path, "b/"+in.Path, string(old), in.Content), nil
				},
				Paths: func(in *flowFile) []string { return []string{in.Path} }})
		}},
		{Name: "execute_command", Factory: func(name string, env tool.Env) *tool.Tool {
			return coordinator.NewTool(tool.Spec[flowCmd]{Name: name,
				Run: func(_ context.Context, c *tool.Call, in *flowCmd) (tool.Result, error) {
					return tool.TextResult("ran " + in.Command), nil
				},
				Command: func(in *flowCmd) tool.CommandLine { return tool.CommandLine{Command: in.Command} }})
		}},
	}
}

// flowServer is a real server over a temporary workspace.
type flowServer struct {
	url string
	dir string
}

func newFlowServer(t *testing.T, cfg coordinator.Config) *flowServer {
	t.Helper()
	f := newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "old\n"}, config: cfg, tools: flowTools(),
		server: Config{Token: flowToken}})
	return &flowServer{url: f.url, dir: f.dir}
}

// call sends a JSON request and decodes the answer into out.
func (f *flowServer) call(t *testing.T, method, path string, body, out any) int {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, f.url+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+flowToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: decode: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

func (f *flowServer) session(t *testing.T, perms api.Permissions) string {
	t.Helper()
	var s api.Session
	if code := f.call(t, http.MethodPost, "/v1/sessions", api.CreateSessionRequest{Permissions: &perms}, &s); code != http.StatusCreated {
		t.Fatalf("create session: got %d, want 201", code)
	}
	return s.ID
}

// sseMessage posts a message with Accept: text/event-stream and returns
// its events as they arrive; the channel closes after message.finished.
func (f *flowServer) sseMessage(t *testing.T, sid string, uses ...api.ToolUse) <-chan api.Event {
	t.Helper()
	var content []json.RawMessage
	for _, u := range uses {
		b, _ := json.Marshal(u)
		content = append(content, b)
	}
	b, _ := json.Marshal(api.AssistantMessage{Role: "assistant", Content: content})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url+"/v1/sessions/"+sid+"/messages", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+flowToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := testHTTP.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ch := make(chan api.Event, 64)
	go func() {
		defer cancel()
		defer close(ch)
		defer resp.Body.Close()
		readSSE(resp.Body, ch)
	}()
	return ch
}

// readSSE parses the data lines of an event stream.
func readSSE(r io.Reader, ch chan<- api.Event) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		var ev api.Event
		if json.Unmarshal([]byte(strings.TrimSpace(data)), &ev) != nil {
			continue
		}
		ch <- ev
		if ev.Type == api.EventMessageFinished {
			return
		}
	}
}

// next returns the next event of a type, failing when the stream ends.
func next(t *testing.T, ch <-chan api.Event, typ string) api.Event {
	t.Helper()
	for ev := range ch {
		if ev.Type == typ {
			return ev
		}
	}
	t.Fatalf("stream ended before a %s event", typ)
	return api.Event{}
}

func writeUse(id, path, content string) api.ToolUse {
	b, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: "write_to_file", Input: b}
}

func cmdUse(id, line string) api.ToolUse {
	b, _ := json.Marshal(map[string]string{"command": line})
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: "execute_command", Input: b}
}

// realCmdUse is an execute_command block for the real tool, which, as
// Cline's, requires requires_approval.
func realCmdUse(id, line string) api.ToolUse {
	b, _ := json.Marshal(map[string]any{"command": line, "requires_approval": false})
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: "execute_command", Input: b}
}

func readUse(id, path string) api.ToolUse {
	b, _ := json.Marshal(map[string]string{"path": path})
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: "read_file", Input: b}
}

func (f *flowServer) decide(t *testing.T, sid, id string, d api.DecisionRequest) api.DecisionResponse {
	t.Helper()
	var resp api.DecisionResponse
	if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/"+id+"/decision", d, &resp); code != http.StatusOK {
		t.Fatalf("decision on %s: got %d, want 200", id, code)
	}
	return resp
}

func texts(r api.ToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text + "\n")
	}
	return b.String()
}
