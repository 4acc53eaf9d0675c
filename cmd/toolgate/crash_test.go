package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/launch"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// crashLoops is how many times TestCrashLosesNothing kills toolgate.
const crashLoops = 200

// TestCrashLosesNothing kills a real toolgate process with SIGKILL, 200
// times, at a random moment while clients write files, run commands and
// approve calls, and starts it again on the same store each time. Every
// call a client saw answered is answered again, identically, when its
// tool_use id is posted again after the restart; no command runs twice
// (each appends its id to ran.log); calls that were awaiting approval
// come back and run once approved; and the database passes SQLite's
// integrity check after every kill.
func TestCrashLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("kills toolgate 200 times")
	}
	tmp := t.TempDir()
	bin := testbuild.Binary(t, testbuild.Toolgate)
	ws := filepath.Join(tmp, "ws")
	state := filepath.Join(tmp, "state", "state.db")
	if err := os.MkdirAll(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"run.sh": "echo \"$1\" >> ran.log\n", "approve.sh": "echo \"$1\" >> ran.log\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(tmp, "toolgate.json")
	body := fmt.Sprintf(`{"store": {"path": %q}, "policy": {"allow_all": true, "permissions": {"ask": ["execute_command(sh approve.sh:*)"]}}}`, state)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}

	acked := map[string]api.ToolResult{} // every call a client saw answered
	var posted []string                  // every id posted, answered or not
	rng := rand.New(rand.NewPCG(1, 2))
	for loop := range crashLoops {
		p := startProcess(t, bin, ws, cfg)
		stopApprover := p.approve(t)
		// What the previous life answered is answered the same way.
		for _, id := range posted[max(0, len(posted)-12):] {
			res, ok := p.repost(t, id)
			if want, wasAcked := acked[id]; wasAcked && (!ok || !sameResult(res, want)) {
				t.Fatalf("loop %d: %s answered %+v after the restart, %+v before", loop, id, res, want)
			}
			if ok && !strings.Contains(firstResultText(res), "interrupted") {
				acked[id] = res
			}
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 6 {
			id := fmt.Sprintf("l%03d_%d", loop, i)
			posted = append(posted, id)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if res, ok := p.post(id); ok {
					mu.Lock()
					acked[id] = res
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		p.kill(t)
		waitAll(t, &wg)
		stopApprover()
		checkIntegrity(t, state)
	}

	// A last life answers every call ever posted: the answered ones as
	// they were answered, none by running twice.
	p := startProcess(t, bin, ws, cfg)
	stopApprover := p.approve(t)
	defer stopApprover()
	for _, id := range posted {
		res, ok := p.repost(t, id)
		if want, wasAcked := acked[id]; wasAcked && (!ok || !sameResult(res, want)) {
			t.Errorf("%s answered %+v at the end, %+v when acknowledged", id, res, want)
		}
	}
	p.kill(t)
	ran, _ := os.ReadFile(filepath.Join(ws, "ran.log"))
	counts := map[string]int{}
	for _, line := range strings.Fields(string(ran)) {
		counts[line]++
	}
	for id, n := range counts {
		if n > 1 {
			t.Errorf("%s ran %d times", id, n)
		}
	}
	commands := 0
	for id, res := range acked {
		if kind(id) != "write" && !res.IsError {
			commands++
			if counts[id] != 1 {
				t.Errorf("%s was answered %q but ran %d times", id, firstResultText(res), counts[id])
			}
		}
	}
	t.Logf("%d loops: %d calls posted, %d answered (%d commands), %d command runs", crashLoops, len(posted), len(acked), commands, len(counts))
}

// kind picks a call's kind from its id: commands, approvals and writes in turn.
func kind(id string) string {
	switch id[len(id)-1] % 3 {
	case 0:
		return "command"
	case 1:
		return "approval"
	}
	return "write"
}

func toolUseFor(id string) map[string]any {
	switch kind(id) {
	case "command":
		return map[string]any{"type": "tool_use", "id": id, "name": "execute_command", "input": map[string]any{"command": "sh run.sh " + id, "requires_approval": false}}
	case "approval":
		return map[string]any{"type": "tool_use", "id": id, "name": "execute_command", "input": map[string]any{"command": "sh approve.sh " + id, "requires_approval": false}}
	}
	return map[string]any{"type": "tool_use", "id": id, "name": "write_to_file", "input": map[string]any{"path": "out/" + id + ".txt", "content": id + "\n"}}
}

func sameResult(a, b api.ToolResult) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func firstResultText(r api.ToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// serverProcess is a toolgate started as a separate process.
type serverProcess struct {
	*launch.Server
	client *http.Client
}

// startProcess starts the toolgate binary on ws with the config file cfg,
// in an environment of its own (PATH and a fresh HOME), logging warnings
// only.
func startProcess(t *testing.T, bin, ws, cfg string) *serverProcess {
	t.Helper()
	srv, err := launch.Start(context.Background(), bin, launch.Options{
		Args:    launch.ServeArgs(ws, "--config", cfg, "--log-level", "warn"),
		Token:   "crash-token",
		BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Kill)
	return &serverProcess{Server: srv, client: &http.Client{Timeout: 20 * time.Second}}
}

func (p *serverProcess) kill(t *testing.T) {
	t.Helper()
	p.Kill()
	p.client.CloseIdleConnections()
}

func (p *serverProcess) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequestWithContext(ctx, method, p.URL+path, r)
	req.Header.Set("Authorization", "Bearer "+p.Token)
	req.Header.Set("Content-Type", "application/json")
	return p.client.Do(req)
}

// post sends one call in a message of its own and reports its result if
// the answer arrived whole.
func (p *serverProcess) post(id string) (api.ToolResult, bool) {
	msg := map[string]any{"role": "assistant", "content": []any{toolUseFor(id)}}
	resp, err := p.do(context.Background(), "POST", "/v1/sessions/default/messages", msg)
	if err != nil {
		return api.ToolResult{}, false
	}
	defer resp.Body.Close()
	var mr api.MessageResponse
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&mr) != nil || len(mr.Message.Content) != 1 {
		return api.ToolResult{}, false
	}
	return mr.Message.Content[0], true
}

// repost posts a call again to a live toolgate, which must answer.
func (p *serverProcess) repost(t *testing.T, id string) (api.ToolResult, bool) {
	t.Helper()
	res, ok := p.post(id)
	if !ok {
		t.Fatalf("re-posting %s got no answer", id)
	}
	return res, ok
}

// approve approves every call awaiting approval until stopped.
func (p *serverProcess) approve(t *testing.T) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			resp, err := p.do(ctx, "GET", "/v1/sessions/default/calls?state=awaiting_approval", nil)
			if err != nil {
				return
			}
			var calls api.CallsResponse
			_ = json.NewDecoder(resp.Body).Decode(&calls)
			resp.Body.Close()
			for _, c := range calls.Calls {
				if resp, err := p.do(ctx, "POST", "/v1/sessions/default/calls/"+c.ToolUseID+"/decision", map[string]any{"decision": "approve"}); err == nil {
					resp.Body.Close()
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() { cancel(); <-done }
}

// checkIntegrity opens the store the killed process left and runs
// SQLite's integrity check.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	st, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatalf("open after kill: %v", err)
	}
	defer st.Close()
	if err := st.CheckIntegrity(t.Context()); err != nil {
		t.Fatal(err)
	}
}
