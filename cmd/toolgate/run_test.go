package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/launch"
)

// instance is a toolgate started through run() on a free port.
type instance struct {
	url, token, dir string
	stderr          *launch.LogBuffer
	stop            func() error
}

// start runs toolgate serve in dir and waits for its address.
func start(t testing.TB, dir string, extraArgs ...string) *instance {
	t.Helper()
	return startLogging(t, dir, nil, extraArgs...)
}

// startLogging is start with toolgate's log written to logTo (a file, as
// a deployment's log goes to a file or a pipe) instead of inst.stderr;
// nil keeps it in inst.stderr.
func startLogging(t testing.TB, dir string, logTo io.Writer, extraArgs ...string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	inst := &instance{dir: dir, token: "e2e-token", stderr: &launch.LogBuffer{}}
	if logTo == nil {
		logTo = inst.stderr
	}
	env := map[string]string{"TOOLGATE_TOKEN": inst.token}
	// The memory store unless a test asks for another (later flags win).
	args := append([]string{"toolgate"}, launch.ServeArgs(dir, "--log-format", "json", "--store", "memory")...)
	args = append(args, extraArgs...)
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(""), outW, logTo)
		outW.Close()
	}()
	addr := launch.WatchStdout(outR, nil)
	select {
	case u, ok := <-addr:
		if !ok {
			t.Fatalf("run returned early: %v\n%s", <-errc, inst.stderr)
		}
		inst.url = u
	case err := <-errc:
		t.Fatalf("run returned early: %v\n%s", err, inst.stderr)
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
	}
	var once sync.Once
	var stopErr error
	inst.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-errc:
			case <-time.After(10 * time.Second):
				t.Error("run did not return after cancel")
			}
		})
		return stopErr
	}
	t.Cleanup(func() { inst.stop() })
	return inst
}

func (in *instance) post(t testing.TB, path string, body any, hdr ...string) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", in.url+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+in.token)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestEndToEnd starts the real server through run(), posts a message with
// three tool_use blocks (one fine, one invalid, one unknown) asking for
// SSE, and checks the event order and the final user message.
func TestEndToEnd(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inst := start(t, dir, "--log-level", "debug") // the per-call line is a debug line
	msg := map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "Reading."},
		map[string]any{"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": map[string]any{"path": "hello.txt"}},
		map[string]any{"type": "tool_use", "id": "toolu_b", "name": "read_file", "input": map[string]any{"start_line": 0}},
		map[string]any{"type": "tool_use", "id": "toolu_c", "name": "fly_to_moon", "input": map[string]any{}},
	}}
	resp := inst.post(t, "/v1/sessions/default/messages", msg, "Accept", "text/event-stream")
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status = %d", resp.StatusCode)
	}
	var seq []string
	var final *api.MessageResponse
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && final == nil {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev api.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		seq = append(seq, ev.Type+":"+ev.ToolUseID)
		final = ev.Response
	}
	// Calls of one message may run side by side, so the order is checked
	// per call: queued, (started,) finished; message.finished last.
	perCall := map[string][]string{}
	for _, e := range seq[:len(seq)-1] {
		typ, id, _ := strings.Cut(e, ":")
		perCall[id] = append(perCall[id], typ)
	}
	wantPerCall := map[string]string{
		"toolu_a": "tool.queued tool.started tool.finished",
		"toolu_b": "tool.queued tool.finished",
		"toolu_c": "tool.queued tool.finished",
	}
	for id, want := range wantPerCall {
		if got := strings.Join(perCall[id], " "); got != want {
			t.Errorf("events of %s: got %s, want %s", id, got, want)
		}
	}
	if last := seq[len(seq)-1]; last != "message.finished:" {
		t.Errorf("last event = %s, want message.finished", last)
	}
	if final == nil {
		t.Fatal("no message.finished")
	}
	content := final.Message.Content
	if final.Message.Role != "user" || len(content) != 3 {
		t.Fatalf("final message = %+v", final.Message)
	}
	checks := []struct {
		id      string
		isError bool
		status  api.CallStatus
		text    string
	}{
		{"toolu_a", false, api.StatusSucceeded, "hello, world\n"},
		{"toolu_b", true, api.StatusInvalid, "Missing value for required parameter 'path'."},
		{"toolu_c", true, api.StatusUnknownTool, "No handler registered for tool: fly_to_moon"},
	}
	for i, c := range checks {
		r := content[i]
		if r.ToolUseID != c.id || r.IsError != c.isError || final.Calls[i].Status != c.status || !strings.Contains(r.Content[0].Text, c.text) {
			t.Errorf("result %d = %+v (%s), want %s %v %s %q", i, r, final.Calls[i].Status, c.id, c.isError, c.status, c.text)
		}
	}
	if err := inst.stop(); err != nil {
		t.Errorf("run returned %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(inst.stderr.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("log line is not JSON: %s", line)
		}
	}
	if !strings.Contains(inst.stderr.String(), `"msg":"tool call"`) {
		t.Errorf("no per-call log line")
	}
	// The log's last line is written before run returns, not by its
	// buffer's timer after.
	if !strings.Contains(inst.stderr.String(), `"msg":"stopped"`) {
		t.Errorf("no \"stopped\" line once run returned")
	}
}

func TestRunErrors(t *testing.T) {
	badOrigins := filepath.Join(t.TempDir(), "origins.json")
	if err := os.WriteFile(badOrigins, []byte(`{"server": {"allowed_origins": ["https://*"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A rule whose tool no dialect has would never match: refused at start.
	badRule := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(badRule, []byte(`{"policy": {"permissions": {"deny": ["Bsh(rm:*)"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"toolgate", "fly"}, "unknown command"},
		{"rule naming no tool", []string{"toolgate", "serve", "--config", badRule, "--workspace", t.TempDir(), "--store", "memory", "--addr", "127.0.0.1:0"},
			`no tool is named Bsh in any dialect (did you mean Bash`},
		{"bad flag", []string{"toolgate", "serve", "--nope"}, "flag provided but not defined"},
		{"missing workspace", []string{"toolgate", "serve", "--workspace", "/does/not/exist"}, "open workspace"},
		{"missing config", []string{"toolgate", "serve", "--config", "/does/not/exist.json"}, "read config"},
		{"bad log format", []string{"toolgate", "serve", "--log-format", "xml"}, "log format"},
		{"origin pattern admitting every site", []string{"toolgate", "serve", "--config", badOrigins}, `allowed_origins: "https://*"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), c.args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	t.Run("random token printed once", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var out launch.LogBuffer
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"toolgate", "serve", "--addr", "127.0.0.1:0", "--workspace", t.TempDir(), "--store", "memory"}, func(string) string { return "" }, nil, &out, io.Discard)
		}()
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(out.String(), "listening") && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		receive(t, done)
		lines := strings.Split(out.String(), "\n")
		tok, ok := strings.CutPrefix(lines[0], "toolgate token: ")
		if !ok || len(tok) != 64 || strings.Count(out.String(), tok) != 1 {
			t.Errorf("stdout = %q, want one 32-byte hex token", out.String())
		}
	})
}

// testHTTP is the client of these tests: every request has a deadline, so
// a server that never answers fails a test in a minute instead of hanging
// the suite.
var testHTTP = &http.Client{Timeout: 60 * time.Second}
