package cline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// toolgate is a `toolgate serve` process with its defaults (SQLite store,
// sandboxed commands, the default policy) on a loopback port, reached
// over HTTP only.
type toolgate struct {
	url, token string
	cmd        *exec.Cmd
	client     *http.Client
	log        bytes.Buffer
}

// startToolgate starts bin serving workspace, with state (its store)
// under scratch, and waits for the address it prints.
func startToolgate(ctx context.Context, bin, workspace, scratch string) (*toolgate, error) {
	tg := &toolgate{token: "conformance-token", client: &http.Client{Timeout: time.Minute}}
	cmd := exec.CommandContext(ctx, bin, "serve", "-addr", "127.0.0.1:0", "-workspace", workspace, "-log-format", "json")
	cmd.Env = append(os.Environ(), "TOOLGATE_TOKEN="+tg.token, "HOME="+scratch, "XDG_STATE_HOME="+filepath.Join(scratch, "state"))
	cmd.Stderr = &tg.log
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	tg.cmd = cmd
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "toolgate listening on "); ok {
				addr <- strings.TrimSpace(u)
			}
		}
		close(addr)
	}()
	select {
	case u, ok := <-addr:
		if !ok {
			tg.stop()
			return nil, fmt.Errorf("toolgate exited before listening: %s", tg.log.String())
		}
		tg.url = u
		return tg, nil
	case <-ctx.Done():
		tg.stop()
		return nil, ctx.Err()
	}
}

func (tg *toolgate) stop() {
	if tg.cmd.Process != nil {
		_ = tg.cmd.Process.Signal(os.Interrupt)
	}
	_ = tg.cmd.Wait()
}

// do sends a JSON request and decodes a JSON answer into out.
func (tg *toolgate) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, tg.url+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tg.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := tg.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// block is one content block of a tool result.
type block struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// toolResult is a tool_result as toolgate answers it.
type toolResult struct {
	ToolUseID string  `json:"tool_use_id"`
	Content   []block `json:"content"`
	IsError   bool    `json:"is_error"`
}

// runToolgate posts each call as one assistant message to a session of a
// toolgate serving ws, as a Cline client would, approving every call that
// waits for approval and answering interactive ones with the call's
// Answer (the run's last answer is "ok"). It returns the results in call
// order.
func runToolgate(ctx context.Context, bin, scratch string, m mode, headless bool, calls []call, ws string) ([][]block, error) {
	tg, err := startToolgate(ctx, bin, ws, scratch)
	if err != nil {
		return nil, err
	}
	defer tg.stop()
	var sess struct {
		ID string `json:"id"`
	}
	if err := tg.do(ctx, "POST", "/v1/sessions", map[string]any{}, &sess); err != nil {
		return nil, err
	}
	model := m.ACPModel
	if headless {
		model = m.CLIModel
	}
	out := make([][]block, len(calls))
	for i, c := range calls {
		use := map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d_%s", i, strings.ReplaceAll(c.ID, "-", "_")),
			"name": c.Tool, "input": c.input(m, model, ws)}
		res, err := tg.post(ctx, sess.ID, use, c.Answer)
		if err != nil {
			return out, fmt.Errorf("%s: %w", c.ID, err)
		}
		out[i] = res.Content
	}
	return out, nil
}

// post sends one call and, while it runs, approves it or answers it.
func (tg *toolgate) post(ctx context.Context, sid string, use map[string]any, answer string) (*toolResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type reply struct {
		res *toolResult
		err error
	}
	done := make(chan reply, 1)
	go func() {
		var resp struct {
			Message struct {
				Content []toolResult `json:"content"`
			} `json:"message"`
		}
		err := tg.do(ctx, "POST", "/v1/sessions/"+sid+"/messages", map[string]any{"role": "assistant", "content": []any{use}}, &resp)
		if err == nil && len(resp.Message.Content) != 1 {
			err = fmt.Errorf("%d results for one call", len(resp.Message.Content))
		}
		if err != nil {
			done <- reply{err: err}
			return
		}
		done <- reply{res: &resp.Message.Content[0]}
	}()
	id := use["id"].(string)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return r.res, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			if err := tg.unblock(ctx, sid, id, answer); err != nil && !errors.Is(err, context.Canceled) {
				return nil, err
			}
		}
	}
}

// unblock approves the call when it awaits approval and answers it when
// it awaits input.
func (tg *toolgate) unblock(ctx context.Context, sid, id, answer string) error {
	var rec struct {
		Call struct {
			State string `json:"state"`
		} `json:"call"`
	}
	if err := tg.do(ctx, "GET", "/v1/sessions/"+sid+"/calls/"+id, nil, &rec); err != nil {
		return nil // not recorded yet
	}
	// An approval or answer may come a tick late, when the call has
	// moved on (409): the message's own answer tells how the call ended,
	// so these posts' errors are not the harness's.
	switch rec.Call.State {
	case "awaiting_approval":
		_ = tg.do(ctx, "POST", "/v1/sessions/"+sid+"/calls/"+id+"/decision", map[string]any{"decision": "approve"}, nil)
	case "awaiting_input":
		if answer == "" {
			answer = "ok"
		}
		_ = tg.do(ctx, "POST", "/v1/sessions/"+sid+"/calls/"+id+"/answer", map[string]any{"text": answer}, nil)
	}
	return nil
}
