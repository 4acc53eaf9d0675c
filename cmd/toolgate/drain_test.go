package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// TestStopLetsRunningCallsFinish: a stop (SIGTERM in main) while a command
// runs lets it finish and answers its message with the real result, and
// the server takes no new request meanwhile.
func TestStopLetsRunningCallsFinish(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(t.TempDir(), "toolgate.json")
	if err := os.WriteFile(config, []byte(`{"policy": {"allow_all": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	inst := start(t, dir, "--config", config)
	running := func() string {
		req, _ := http.NewRequest("GET", inst.url+"/v1/sessions/default/calls?state=running", nil)
		req.Header.Set("Authorization", "Bearer "+inst.token)
		resp, err := testHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	type answer struct {
		resp *api.MessageResponse
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		// The command waits for a file the test creates once the stop began.
		resp := inst.post(t, "/v1/sessions/default/messages", map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "drain1", "name": "execute_command", "input": map[string]any{
				"command": "while [ ! -e release ]; do sleep 0.02; done; echo finished", "requires_approval": false}},
		}})
		defer resp.Body.Close()
		var m api.MessageResponse
		body, _ := io.ReadAll(resp.Body)
		err := json.Unmarshal(body, &m)
		got <- answer{&m, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for !strings.Contains(running(), "drain1") {
		select {
		case <-ctx.Done():
			t.Fatal("the command never ran")
		case <-time.After(20 * time.Millisecond):
		}
	}
	stopped := make(chan error, 1)
	go func() { stopped <- inst.stop() }()
	// New requests are refused once the stop began.
	for {
		resp, err := testHTTP.Get(inst.url + "/healthz")
		if err != nil {
			break
		}
		resp.Body.Close()
		select {
		case <-ctx.Done():
			t.Fatal("the server kept taking requests after the stop")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-got:
		if a.err != nil {
			t.Fatal(a.err)
		}
		res := a.resp.Message.Content[0]
		text := ""
		for _, c := range res.Content {
			text += c.Text
		}
		if res.IsError || !strings.Contains(text, "finished") {
			t.Errorf("the running command was cut short: is_error=%v %q", res.IsError, text)
		}
	case <-ctx.Done():
		t.Fatal("no answer")
	}
	if err := receive(t, stopped); err != nil {
		t.Errorf("run: %v", err)
	}
}
