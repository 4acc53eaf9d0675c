package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/launch"
	"github.com/toolgate/toolgate/internal/randid"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// Toolgate is a toolgate process serving one workspace on loopback.
type Toolgate struct {
	// URL is where it listens, http://127.0.0.1:PORT.
	URL string
	// Token is the bearer token it takes (TOOLGATE_TOKEN).
	Token string
}

// StartToolgate builds toolgate (once per test binary) and runs `toolgate
// serve` on workspace with its defaults (the SQLite store, the command
// sandbox), a random loopback port, the token in TOOLGATE_TOKEN and its
// state under a temporary XDG_STATE_HOME. config, when not nil, is written
// to a file passed with --config; env adds variables (KEY=value), the
// token excepted (Toolgate.Token is the one it takes). The
// process is stopped when the test ends; its log is shown if the test
// failed.
func StartToolgate(t *testing.T, workspace string, config any, env ...string) *Toolgate {
	t.Helper()
	o := launch.Options{
		Args:  launch.ServeArgs(workspace, "--log-format", "json"),
		Token: randid.Hex(16),
		Env:   append([]string{"XDG_STATE_HOME=" + t.TempDir()}, env...),
	}
	if config != nil {
		o.Config, o.ConfigPath = config, filepath.Join(t.TempDir(), "toolgate.json")
	}
	srv, err := launch.Start(context.Background(), testbuild.Binary(t, testbuild.Toolgate), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("toolgate log:\n%s", srv.Log())
		}
	})
	return &Toolgate{URL: srv.URL, Token: srv.Token}
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
	req.Header.Set("Authorization", "Bearer "+tg.Token)
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
