package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/randid"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// Toolgate is a toolgate process serving one workspace on loopback.
type Toolgate struct {
	// URL is where it listens, http://127.0.0.1:PORT.
	URL   string
	token string
	log   *lockedBuffer
}

// lockedBuffer collects the process's log while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartToolgate builds toolgate (once per test binary) and runs `toolgate
// serve` on workspace with its defaults (the SQLite store, the command
// sandbox), a random loopback port, the token in TOOLGATE_TOKEN and its
// state under a temporary XDG_STATE_HOME. config, when not nil, is written
// to a file passed with --config; env adds variables (KEY=value). The
// process is stopped when the test ends; its log is shown if the test
// failed.
func StartToolgate(t *testing.T, workspace string, config any, env ...string) *Toolgate {
	t.Helper()
	bin := testbuild.Binary(t, testbuild.Toolgate)
	args := []string{"serve", "--addr", "127.0.0.1:0", "--workspace", workspace, "--log-format", "json"}
	if config != nil {
		js, err := json.Marshal(config)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "toolgate.json")
		if err := os.WriteFile(p, js, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", p)
	}
	tg := &Toolgate{token: randid.Hex(16), log: &lockedBuffer{}}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "TOOLGATE_TOKEN="+tg.token, "XDG_STATE_HOME="+t.TempDir()), env...)
	cmd.Stderr = tg.log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(cmd) })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("toolgate log:\n%s", tg.log.String())
		}
	})
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "toolgate listening on "); ok {
				url <- u
			}
		}
	}()
	select {
	case tg.URL = <-url:
	case <-time.After(30 * time.Second):
		t.Fatalf("toolgate did not say where it listens within 30s; log:\n%s", tg.log.String())
	}
	return tg
}

// stop ends the process with SIGTERM, then SIGKILL after 10 seconds.
func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Do sends a request with the token and decodes a JSON answer into out
// (when not nil); a status other than want is an error.
func (tg *Toolgate) Do(ctx context.Context, method, path string, body, out any, want int) error {
	var rd io.Reader
	if body != nil {
		js, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequestWithContext(ctx, method, tg.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tg.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: status %d, want %d: %s", method, path, res.StatusCode, want, data)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// NewSession creates a session from a SessionRequest body (dialect,
// mode, permissions) and returns its id.
func (tg *Toolgate) NewSession(ctx context.Context, request map[string]any) (string, error) {
	var s struct {
		ID string `json:"id"`
	}
	if err := tg.Do(ctx, http.MethodPost, "/v1/sessions", request, &s, http.StatusCreated); err != nil {
		return "", err
	}
	return s.ID, nil
}

// Result is a tool_result block: Content is a JSON string or a list of
// content blocks, as the Messages API allows either.
type Result struct {
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Call posts one assistant message holding one tool_use block to the
// session and returns the tool_result toolgate answers.
func (tg *Toolgate) Call(ctx context.Context, session, id, name string, input any) (Result, error) {
	msg := map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}
	var out struct {
		Message struct {
			Content []Result `json:"content"`
		} `json:"message"`
	}
	if err := tg.Do(ctx, http.MethodPost, "/v1/sessions/"+session+"/messages", msg, &out, http.StatusOK); err != nil {
		return Result{}, err
	}
	for _, r := range out.Message.Content {
		if r.ToolUseID == id {
			return r, nil
		}
	}
	return Result{}, fmt.Errorf("no tool_result for %s in toolgate's answer", id)
}
