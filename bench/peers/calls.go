package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
)

// toolgateCalls posts tool_use blocks to POST /v1/tool_use.
type toolgateCalls struct {
	url, token string
	client     *http.Client
}

func (t *toolgateCalls) read(id string) (check func() error, err error) {
	body, err := t.post(`{"type":"tool_use","id":"toolu_` + id + `","name":"read_file","input":{"path":"one_kb.txt"}}`)
	return func() error {
		text, err := toolgateText(body)
		if err == nil && !strings.Contains(text, "0123456789abcde") {
			err = fmt.Errorf("read_file answered %.200s", text)
		}
		return err
	}, err
}

func (t *toolgateCalls) command(id string) (check func() error, err error) {
	body, err := t.post(`{"type":"tool_use","id":"toolu_` + id + `","name":"execute_command","input":{"command":"true","requires_approval":false}}`)
	return func() error { _, err := toolgateText(body); return err }, err
}

// post sends one block and returns the whole answer, or an error when it
// is not a 200.
func (t *toolgateCalls) post(block string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, t.url+"/v1/tool_use", strings.NewReader(block))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+t.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("toolgate: %s: %.300s", resp.Status, body)
	}
	return body, nil
}

// toolgateText decodes an answer and returns its result's text, or an
// error when the call did not succeed.
func toolgateText(body []byte) (string, error) {
	var out struct {
		Result struct {
			IsError bool `json:"is_error"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Call struct {
			Status string `json:"status"`
		} `json:"call"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return "", err
	}
	if out.Result.IsError || out.Call.Status != "succeeded" {
		return "", fmt.Errorf("toolgate: call %s: %.300s", out.Call.Status, body)
	}
	var text strings.Builder
	for _, c := range out.Result.Content {
		text.WriteString(c.Text)
	}
	return text.String(), nil
}

// envdCalls speaks envd's API as E2B's SDKs do: GET /files for a read,
// and the Connect server-streaming call process.Process/Start, read until
// its end event. The SDKs' commands.run sends /bin/bash -l -c CMD; the
// command here is /bin/bash -c true, as toolgate runs it, since a login
// shell's profile (about 120 ms on a Debian machine with bash-completion)
// would measure the machine's profile, not the server.
type envdCalls struct {
	url, dir string
	user     string // the user envd runs commands as: this one, as envd can switch to no other unless root
	client   *http.Client
}

func (e *envdCalls) read(string) (check func() error, err error) {
	q := url.Values{"path": {filepath.Join(e.dir, "one_kb.txt")}, "username": {e.user}}
	resp, err := e.client.Get(e.url + "/files?" + q.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return func() error {
		if resp.StatusCode != http.StatusOK || string(body) != oneKB {
			return fmt.Errorf("envd read: %s: %.200s", resp.Status, body)
		}
		return nil
	}, err
}

func (e *envdCalls) command(string) (check func() error, err error) {
	msg, err := json.Marshal(map[string]any{"process": map[string]any{
		"cmd": "/bin/bash", "args": []string{"-c", "true"}, "envs": map[string]string{}, "cwd": e.dir,
	}})
	if err != nil {
		return nil, err
	}
	var env bytes.Buffer
	env.WriteByte(0)
	_ = binary.Write(&env, binary.BigEndian, uint32(len(msg)))
	env.Write(msg)
	req, err := http.NewRequest(http.MethodPost, e.url+"/process.Process/Start", &env)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/connect+json")
	req.Header.Set("Connect-Protocol-Version", "1")
	req.SetBasicAuth(e.user, "")
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body) // the stream ends after its end-of-stream envelope
	return func() error {
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("envd start: %s: %.300s", resp.Status, body)
		}
		return readProcessStream(bytes.NewReader(body))
	}, err
}

// readProcessStream reads Connect envelopes (a flags byte, a 32-bit
// length, a JSON message) until the end-of-stream one, and fails unless
// an end event with exit code 0 came before it.
func readProcessStream(r io.Reader) error {
	var head [5]byte
	ended := false
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return fmt.Errorf("envd start: stream: %w", err)
		}
		msg := make([]byte, binary.BigEndian.Uint32(head[1:]))
		if _, err := io.ReadFull(r, msg); err != nil {
			return fmt.Errorf("envd start: stream: %w", err)
		}
		if head[0]&2 != 0 { // end of stream: {} or {"error": ...}
			if bytes.Contains(msg, []byte(`"error"`)) {
				return fmt.Errorf("envd start: %s", msg)
			}
			if !ended {
				return fmt.Errorf("envd start: stream ended without an end event")
			}
			return nil
		}
		var ev struct {
			Event struct {
				End *struct {
					ExitCode int  `json:"exitCode"`
					Exited   bool `json:"exited"`
				} `json:"end"`
			} `json:"event"`
		}
		if err := json.Unmarshal(msg, &ev); err != nil {
			return fmt.Errorf("envd start: %w", err)
		}
		if end := ev.Event.End; end != nil {
			if !end.Exited || end.ExitCode != 0 {
				return fmt.Errorf("envd start: process ended %s", msg)
			}
			ended = true
		}
	}
}
