package mcphub

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestHubStdio(t *testing.T) {
	s, marker := stdioSettings(t)
	h := startHub(t, s)
	waitConnected(t, h, "test", 0)
	ctx := context.Background()

	t.Run("lists tools under cleaned names", func(t *testing.T) {
		var names []string
		for _, tool := range h.Tools() {
			names = append(names, tool.Listed)
		}
		got := strings.Join(names, ",")
		for _, want := range []string{"mcp__test__echo", "mcp__test__slow", "mcp__test__crash"} {
			if !strings.Contains(got, want) {
				t.Errorf("Tools() = %s, want %s among them", got, want)
			}
		}
	})
	t.Run("read-only hint and auto-approve", func(t *testing.T) {
		if !h.ReadOnly("test", "echo") || h.ReadOnly("test", "slow") {
			t.Errorf("ReadOnly(echo, slow) = %v, %v; want true, false", h.ReadOnly("test", "echo"), h.ReadOnly("test", "slow"))
		}
		if !h.AutoApprove("test", "echo") || h.AutoApprove("test", "slow") {
			t.Errorf("AutoApprove(echo, slow) = %v, %v; want true, false", h.AutoApprove("test", "echo"), h.AutoApprove("test", "slow"))
		}
	})
	t.Run("call", func(t *testing.T) {
		res, err := h.CallTool(ctx, "test", "echo", map[string]any{"text": "hi"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := textOf(t, res); got != "echo: hi" || res.IsError {
			t.Errorf("echo = %q (is_error %v), want %q", got, res.IsError, "echo: hi")
		}
	})
	t.Run("isError result", func(t *testing.T) {
		res, err := h.CallTool(ctx, "test", "fail", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(textOf(t, res), "it broke") {
			t.Errorf("fail = %+v, want is_error with the message", res.Content)
		}
	})
	t.Run("resource", func(t *testing.T) {
		res, err := h.ReadResource(ctx, "test", "mem://hello")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Contents[0].Text; got != "hello resource" {
			t.Errorf("resource = %q, want %q", got, "hello resource")
		}
	})
	t.Run("unknown server and tool", func(t *testing.T) {
		if _, err := h.CallTool(ctx, "nope", "echo", nil, nil); err == nil {
			t.Error("call to an unknown server succeeded")
		}
		if _, err := h.CallTool(ctx, "test", "nope", nil, nil); err == nil {
			t.Error("call to an unknown tool succeeded")
		}
	})
	t.Run("progress then cancel", func(t *testing.T) {
		progress := make(chan string, 8)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			_, err := h.CallTool(cctx, "test", "slow", map[string]any{"steps": 2}, func(m string) { progress <- m })
			errc <- err
		}()
		for _, want := range []string{"step 1", "step 2"} {
			if got := receive(t, progress); got != want {
				t.Errorf("progress = %q, want %q", got, want)
			}
		}
		cancel()
		if err := receive(t, errc); err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("cancelled call error = %v, want a cancellation", err)
		}
		waitFor(t, "the server to see notifications/cancelled", func() bool {
			_, err := os.Stat(marker)
			return err == nil
		})
	})
	t.Run("timeout", func(t *testing.T) {
		_, err := h.CallTool(ctx, "test", "slow", map[string]any{"steps": 0}, nil)
		if err == nil || !strings.Contains(err.Error(), "within its timeout of 1s") {
			t.Errorf("timed-out call error = %v, want the timeout named", err)
		}
	})
	t.Run("list_changed", func(t *testing.T) {
		if _, err := h.CallTool(ctx, "test", "grow", nil, nil); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the late tool to be listed", func() bool {
			for _, tool := range h.Tools() {
				if tool.Listed == "mcp__test__late" {
					return true
				}
			}
			return false
		})
	})
	t.Run("crash and reconnect", func(t *testing.T) {
		if _, err := h.CallTool(ctx, "test", "crash", nil, nil); err == nil {
			t.Error("crash call succeeded")
		}
		waitConnected(t, h, "test", 1)
		res, err := h.CallTool(ctx, "test", "echo", map[string]any{"text": "back"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := textOf(t, res); got != "echo: back" {
			t.Errorf("echo after restart = %q", got)
		}
		if st := h.Servers()[0]; st.LastError == "" || st.ExitCode == nil || *st.ExitCode != 3 {
			t.Errorf("status after crash = %+v, want the last error and exit code 3", st)
		}
	})
}

// startHTTPServer runs the test server with the flag (-http or -sse) and
// returns the URL it prints.
func startHTTPServer(t *testing.T, flag string) string {
	t.Helper()
	cmd := exec.Command(testServer(t), flag, "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(url)
}

// TestHubSSE connects to a live server built with go-sdk's NewSSEHandler
// (mcp/sse.go, the 2024-11-05 transport): the connection outlives the
// handshake's timeout, so listing and calling work.
func TestHubSSE(t *testing.T) {
	h := startHub(t, Settings{MCPServers: map[string]ServerConfig{
		"legacy": {Type: TransportSSE, URL: startHTTPServer(t, "-sse")},
	}})
	waitConnected(t, h, "legacy", 0)
	if n := len(h.Tools()); n == 0 {
		t.Fatalf("no tools listed over SSE; servers: %+v", h.Servers())
	}
	res, err := h.CallTool(context.Background(), "legacy", "echo", map[string]any{"text": "over sse"}, nil)
	if err != nil {
		t.Fatalf("call over SSE: %v (servers: %+v)", err, h.Servers())
	}
	if got := textOf(t, res); got != "echo: over sse" {
		t.Errorf("echo = %q, want %q", got, "echo: over sse")
	}
	if st := h.Servers()[0]; st.Reconnects != 0 || st.LastError != "" {
		t.Errorf("status = %+v, want one clean connection", st)
	}
}

func TestHubStreamableHTTP(t *testing.T) {
	h := startHub(t, Settings{MCPServers: map[string]ServerConfig{
		"web": {Type: TransportStreamableHTTP, URL: startHTTPServer(t, "-http"), Headers: map[string]string{"X-Test": "1"}},
	}})
	waitConnected(t, h, "web", 0)

	t.Run("call", func(t *testing.T) {
		res, err := h.CallTool(context.Background(), "web", "echo", map[string]any{"text": "over http"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := textOf(t, res); got != "echo: over http" {
			t.Errorf("echo = %q, want %q", got, "echo: over http")
		}
	})
	t.Run("progress", func(t *testing.T) {
		progress := make(chan string, 8)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := h.CallTool(ctx, "web", "slow", map[string]any{"steps": 1}, func(m string) { progress <- m })
			errc <- err
		}()
		if got := receive(t, progress); got != "step 1" {
			t.Errorf("progress = %q, want %q", got, "step 1")
		}
		cancel()
		if err := receive(t, errc); !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("cancelled call error = %v", err)
		}
	})
}

func TestHubStates(t *testing.T) {
	h := startHub(t, Settings{MCPServers: map[string]ServerConfig{
		"off":    {Command: "true", Disabled: true},
		"broken": {Command: "/nonexistent/mcp-server"},
	}})
	waitFor(t, "broken server's error", func() bool { return h.Servers()[0].LastError != "" })
	got := h.Servers()
	if got[0].Name != "broken" || got[0].State == Connected || got[1].State != Disabled {
		t.Errorf("Servers() = %+v, want broken not connected and off disabled", got)
	}
	_, err := h.CallTool(context.Background(), "broken", "x", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "last error") {
		t.Errorf("call to a broken server = %v, want its state and last error", err)
	}
	var nilHub *Hub
	if len(nilHub.Servers()) != 0 || nilHub.Tools() != nil {
		t.Error("a nil hub is not empty")
	}
}

// TestHubStartFailure: a stdio server that exits at start-up shows its exit
// code and the tail of its stderr, not just "EOF".
func TestHubStartFailure(t *testing.T) {
	h := startHub(t, Settings{MCPServers: map[string]ServerConfig{
		"gh": {Command: testServer(t), Args: []string{"-fail-start", "fatal: GITHUB_TOKEN is not set"}},
	}})
	waitFor(t, "the exit to be recorded", func() bool { return h.Servers()[0].ExitCode != nil })
	st := h.Servers()[0]
	if *st.ExitCode != 3 {
		t.Errorf("exit_code = %d, want 3", *st.ExitCode)
	}
	if st.StderrTail != "starting testserver\nfatal: GITHUB_TOKEN is not set" {
		t.Errorf("stderr_tail = %q, want both lines", st.StderrTail)
	}
	if !strings.Contains(st.LastError, "exited with code 3") || !strings.Contains(st.LastError, "GITHUB_TOKEN is not set") {
		t.Errorf("last_error = %q, want the exit and the last stderr line", st.LastError)
	}
	_, err := h.CallTool(context.Background(), "gh", "x", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN is not set") {
		t.Errorf("call to the failed server = %v, want the reason", err)
	}
}

func TestLogWriterTail(t *testing.T) {
	w := &logWriter{logger: slog.New(slog.DiscardHandler)}
	for i := range 500 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	tail := w.Tail()
	if len(tail) > maxTail || !strings.HasPrefix(tail, "line ") || !strings.HasSuffix(tail, "line 499") {
		t.Errorf("tail = %d bytes %q..., want at most %d bytes of whole lines ending at line 499", len(tail), tail[:min(20, len(tail))], maxTail)
	}
}
