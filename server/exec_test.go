package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// execServer is a real server over a real coordinator with the default tools.
type execServer struct {
	url   string
	dir   string
	coord *coordinator.Coordinator
}

func newExecServer(tb testing.TB) *execServer {
	tb.Helper()
	cfg := coordinator.DefaultConfig()
	cfg.Commands.OutputDir = tb.TempDir()
	cfg.AllowAll = true // these tests are about running commands, not approving them
	f := newFixture(tb, fixtureOptions{config: cfg, server: Config{Token: testToken}})
	return &execServer{url: f.url, dir: f.dir, coord: f.coord}
}

func (s *execServer) request(tb testing.TB, ctx context.Context, method, path string, body any, accept string) *http.Response {
	tb.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := testHTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		tb.Fatal(err)
	}
	return resp
}

// decodeJSON reads a JSON answer, checking its status.
func decodeJSON[T any](tb testing.TB, resp *http.Response, status int) T {
	tb.Helper()
	defer resp.Body.Close()
	var v T
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		tb.Fatalf("status %d, want %d: %s", resp.StatusCode, status, b)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func (s *execServer) session(tb testing.TB) string {
	tb.Helper()
	return decodeJSON[api.Session](tb, s.request(tb, tb.Context(), "POST", "/v1/sessions", map[string]any{}, ""), http.StatusCreated).ID
}

func commandUse(id, command string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": "execute_command",
		"input": map[string]any{"command": command, "requires_approval": false}}
}

func message(uses ...map[string]any) map[string]any {
	content := make([]any, len(uses))
	for i, u := range uses {
		content[i] = u
	}
	return map[string]any{"role": "assistant", "content": content}
}

// received is an SSE event and when the client read it.
type received struct {
	ev api.Event
	at time.Time
}

// readSSE parses a text/event-stream body into events until it ends.
func readExecSSE(body io.ReadCloser) <-chan received {
	ch := make(chan received, 4096)
	go func() {
		defer close(ch)
		defer body.Close()
		scanSSE(body, func(r received) bool { ch <- r; return true })
	}()
	return ch
}

// scanSSE calls fn with each event of an SSE body as it is read, until
// the body ends or fn returns false.
func scanSSE(body io.Reader, fn func(received) bool) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			data = append(data, d...)
			continue
		}
		if len(line) == 0 && len(data) > 0 {
			var ev api.Event
			if json.Unmarshal(data, &ev) == nil && !fn(received{ev, time.Now()}) {
				return
			}
			data = data[:0]
		}
	}
}

// next returns the next event matching keep, failing after a deadline.
func nextExec(tb testing.TB, ch <-chan received, keep func(api.Event) bool) received {
	tb.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case r, ok := <-ch:
			if !ok {
				tb.Fatal("event stream ended")
			}
			if keep(r.ev) {
				return r
			}
		case <-deadline:
			tb.Fatal("no matching event in time")
		}
	}
}

func isType(t string) func(api.Event) bool { return func(ev api.Event) bool { return ev.Type == t } }

func chunkHas(s string) func(api.Event) bool {
	return func(ev api.Event) bool { return ev.Type == api.EventToolOutput && strings.Contains(ev.Chunk, s) }
}

func text(r *api.ToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text + "\n")
	}
	return b.String()
}

func TestCommandOutputOverSSE(t *testing.T) {
	s := newExecServer(t)
	sid := s.session(t)
	t.Run("chunks in order, then the result", func(t *testing.T) {
		cmd := "for i in $(seq 1 200); do echo out$i; echo err$i >&2; done; printf tail"
		resp := s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages", message(commandUse("toolu_order", cmd)), "text/event-stream")
		var out, errs strings.Builder
		var finished *api.Event
		for r := range readExecSSE(resp.Body) {
			if r.ev.Type == api.EventMessageFinished {
				resp.Body.Close()
				break
			}
			switch r.ev.Type {
			case api.EventToolOutput:
				if finished != nil {
					t.Errorf("tool.output after tool.finished")
				}
				map[string]*strings.Builder{"stdout": &out, "stderr": &errs}[r.ev.Stream].WriteString(r.ev.Chunk)
			case api.EventToolFinished:
				finished = &r.ev
			}
		}
		var wantOut, wantErr strings.Builder
		for i := 1; i <= 200; i++ {
			fmt.Fprintf(&wantOut, "out%d\n", i)
			fmt.Fprintf(&wantErr, "err%d\n", i)
		}
		wantOut.WriteString("tail")
		if out.String() != wantOut.String() || errs.String() != wantErr.String() {
			t.Errorf("streamed stdout %d bytes, stderr %d bytes; want %d and %d in order", out.Len(), errs.Len(), wantOut.Len(), wantErr.Len())
		}
		if finished == nil || finished.Call.Status != api.StatusSucceeded || !strings.Contains(text(finished.Result), "out200\n") {
			t.Fatalf("tool.finished %+v", finished)
		}
	})
	t.Run("a chunk arrives while the command still runs, then cancel", func(t *testing.T) {
		resp := s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages",
			message(commandUse("toolu_cancel", "echo first; sh -c 'sleep 999 & sleep 999'")), "text/event-stream")
		evs := readExecSSE(resp.Body)
		nextExec(t, evs, chunkHas("first"))
		cresp := s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/calls/toolu_cancel/cancel", nil, "")
		cresp.Body.Close()
		if cresp.StatusCode != http.StatusAccepted {
			t.Fatalf("cancel: status %d", cresp.StatusCode)
		}
		fin := nextExec(t, evs, isType(api.EventToolFinished)).ev
		if fin.Call.Status != api.StatusCancelled || !strings.Contains(text(fin.Result), "first\n") || !fin.Result.IsError {
			t.Errorf("finished %s with %q, want cancelled with the output so far", fin.Call.Status, text(fin.Result))
		}
	})
}

func TestInterruptCommand(t *testing.T) {
	s := newExecServer(t)
	sid := s.session(t)
	done := make(chan api.MessageResponse, 1)
	go func() {
		resp := s.request(t, context.Background(), "POST", "/v1/sessions/"+sid+"/messages", message(commandUse("toolu_int", "echo go; sleep 999")), "")
		done <- decodeJSON[api.MessageResponse](t, resp, http.StatusOK)
	}()
	sess, _ := s.coord.Sessions().Get(sid)
	waitOutput(t, sess, "toolu_int", "go")
	got := decodeJSON[api.InterruptResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/interrupt", nil, ""), http.StatusOK)
	if got.Cancelled != 1 {
		t.Errorf("interrupt cancelled %d calls, want 1", got.Cancelled)
	}
	select {
	case m := <-done:
		if m.Calls[0].Status != api.StatusCancelled || !strings.Contains(text(&m.Message.Content[0]), "go\n") {
			t.Errorf("status %s result %q, want cancelled with the output so far", m.Calls[0].Status, text(&m.Message.Content[0]))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupted call did not end")
	}
}

// TestSiblingErrorCancelsCommand runs two read-only commands side by
// side; the second fails, which cancels the first (Claude Code's sibling
// error cascade). The first one's result is the output it had printed,
// then only that it was cancelled and why: no "Exit code 0" trailer for a
// command that never exited on its own. The commands wait on FIFOs the
// test controls, so the order is certain.
func TestSiblingErrorCancelsCommand(t *testing.T) {
	s := newExecServer(t)
	sid := s.session(t)
	for _, name := range []string{"hold.fifo", "go.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(s.dir, name), 0o600); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}
	done := make(chan api.MessageResponse, 1)
	go func() {
		resp := s.request(t, context.Background(), "POST", "/v1/sessions/"+sid+"/messages",
			message(commandUse("toolu_sib_long", "echo partial; cat hold.fifo"), commandUse("toolu_sib_bad", "cat go.fifo; false")), "")
		done <- decodeJSON[api.MessageResponse](t, resp, http.StatusOK)
	}()
	sess, _ := s.coord.Sessions().Get(sid)
	waitOutput(t, sess, "toolu_sib_long", "partial")
	opened := make(chan error, 1)
	go func() { // blocks until the failing command's cat opens the FIFO
		f, err := os.OpenFile(filepath.Join(s.dir, "go.fifo"), os.O_WRONLY, 0)
		if err == nil {
			err = f.Close()
		}
		opened <- err
	}()
	if err := receive(t, opened); err != nil {
		t.Fatal(err)
	}
	m := receive(t, done)
	if m.Calls[0].Status != api.StatusCancelled || m.Calls[1].Status != api.StatusFailed {
		t.Fatalf("statuses %s, %s; want cancelled, failed", m.Calls[0].Status, m.Calls[1].Status)
	}
	res := m.Message.Content[0]
	got := text(&res)
	if strings.Contains(strings.ToLower(got), "exit code") {
		t.Errorf("the cancelled command's result reports an exit code: %q", got)
	}
	last := res.Content[len(res.Content)-1].Text
	if !strings.HasPrefix(got, "partial\n") || !strings.HasPrefix(last, "Cancelled: ") || !strings.Contains(last, "toolu_sib_bad") || !res.IsError {
		t.Errorf("result = %q (last block %q), want the output, then only that a sibling's error cancelled it", got, last)
	}
}

// waitOutput waits until a call has streamed a chunk holding want.
func waitOutput(tb testing.TB, sess *coordinator.Session, id, want string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), 20*time.Second)
	defer cancel()
	if _, err := sess.Events.WaitFor(ctx, 0, func(ev api.Event) bool {
		return ev.ToolUseID == id && ev.Type == api.EventToolOutput && strings.Contains(ev.Chunk, want)
	}); err != nil {
		tb.Fatalf("call %s never printed %q: %v", id, want, err)
	}
}

func TestDisconnectKeepsTheCall(t *testing.T) {
	s := newExecServer(t)
	sess, _ := s.coord.Sessions().Get(api.DefaultSessionID)
	gate := filepath.Join(s.dir, "gate")
	ctx, cancel := context.WithCancel(t.Context())
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		resp := s.request(t, ctx, "POST", "/v1/tool_use", commandUse("toolu_dc", "echo a; while [ ! -e gate ]; do sleep 0.01; done; echo b"), "")
		if resp != nil {
			resp.Body.Close()
		}
	}()
	waitOutput(t, sess, "toolu_dc", "a")
	cancel() // the client goes away mid-command
	receive(t, gone)
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		got := decodeJSON[api.CallResponse](t, s.request(t, t.Context(), "GET", "/v1/sessions/default/calls/toolu_dc", nil, ""), http.StatusOK)
		if got.Call.State == api.StateDone {
			if got.Call.Status != api.StatusSucceeded || text(got.Result) != "Command executed successfully (exit code 0).\nOutput:\na\nb\n" {
				t.Errorf("status %s result %q, want succeeded with a and b", got.Call.Status, text(got.Result))
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the call never finished after its client left")
}

func TestRepostCommand(t *testing.T) {
	s := newExecServer(t)
	sess, _ := s.coord.Sessions().Get(api.DefaultSessionID)
	use := commandUse("toolu_once", "echo run >> runs.txt; echo started; while [ ! -e gate ]; do sleep 0.01; done")
	first := make(chan api.ToolUseResponse, 1)
	go func() {
		first <- decodeJSON[api.ToolUseResponse](t, s.request(t, context.Background(), "POST", "/v1/tool_use", use, ""), http.StatusOK)
	}()
	waitOutput(t, sess, "toolu_once", "started")
	second := make(chan api.ToolUseResponse, 1)
	go func() {
		second <- decodeJSON[api.ToolUseResponse](t, s.request(t, context.Background(), "POST", "/v1/tool_use", use, ""), http.StatusOK)
	}()
	if err := os.WriteFile(filepath.Join(s.dir, "gate"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := receive(t, first), receive(t, second)
	c := decodeJSON[api.ToolUseResponse](t, s.request(t, t.Context(), "POST", "/v1/tool_use", use, ""), http.StatusOK)
	for name, r := range map[string]api.ToolUseResponse{"running": b, "finished": c} {
		t.Run(name, func(t *testing.T) {
			if r.Call.Status != api.StatusSucceeded || text(&r.Result) != text(&a.Result) {
				t.Errorf("re-post got %s %q, want the first run's %q", r.Call.Status, text(&r.Result), text(&a.Result))
			}
		})
	}
	if runs, _ := os.ReadFile(filepath.Join(s.dir, "runs.txt")); string(runs) != "run\n" {
		t.Errorf("runs.txt = %q: the command ran more than once", runs)
	}
}

func TestFullOutputEndpoint(t *testing.T) {
	s := newExecServer(t)
	res := decodeJSON[api.ToolUseResponse](t, s.request(t, t.Context(), "POST", "/v1/tool_use", commandUse("toolu_long", "seq 1 5000"), ""), http.StatusOK)
	short := text(&res.Result)
	// Cline's layout: the first and last 100 lines around its note, which
	// names the output route where Cline names its log file.
	if strings.Contains(short, "\n2500\n") || !strings.Contains(short, "lines written to /v1/sessions/default/calls/toolu_long/output) ...") ||
		!strings.Contains(short, "\nFull output saved to: /v1/sessions/default/calls/toolu_long/output") {
		t.Errorf("result is not shortened with a note and a hint: %d bytes", len(short))
	}
	resp := s.request(t, t.Context(), "GET", "/v1/sessions/default/calls/toolu_long/output", nil, "")
	full, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var want strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if resp.StatusCode != http.StatusOK || string(full) != want.String() || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("output: status %d, %d bytes (want %d), type %q", resp.StatusCode, len(full), want.Len(), resp.Header.Get("Content-Type"))
	}
	for _, tc := range []struct {
		name, path string
		status     int
	}{
		{"unknown call", "/v1/sessions/default/calls/nope/output", http.StatusNotFound},
		{"unknown session", "/v1/sessions/nope/calls/toolu_long/output", http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.request(t, t.Context(), "GET", tc.path, nil, "")
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
}

// The output so far can be fetched while the command runs, spilled to its
// file or not, and is whole once the call is done.
func TestFullOutputWhileRunning(t *testing.T) {
	s := newExecServer(t)
	sid := s.session(t)
	var want strings.Builder
	for i := 1; i <= 200000; i++ { // over the 512 KiB kept in memory
		fmt.Fprintf(&want, "%d\n", i)
	}
	want.WriteString("MARK\n")
	resp := s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages",
		message(commandUse("toolu_live", "seq 1 200000; echo MARK; sleep 999")), "text/event-stream")
	evs := readExecSSE(resp.Body)
	nextExec(t, evs, chunkHas("MARK"))
	fetch := func(t *testing.T) (string, string) {
		t.Helper()
		resp := s.request(t, t.Context(), "GET", "/v1/sessions/"+sid+"/calls/toolu_live/output", nil, "")
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("output: status %d, %v", resp.StatusCode, err)
		}
		return string(body), resp.Header.Get("Toolgate-Call-State")
	}
	if body, state := fetch(t); state != string(api.StateRunning) || body != want.String() {
		t.Errorf("while running: state %q, %d bytes (want %q and %d bytes)", state, len(body), api.StateRunning, want.Len())
	}
	cresp := s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/calls/toolu_live/cancel", nil, "")
	cresp.Body.Close()
	nextExec(t, evs, isType(api.EventToolFinished))
	if body, state := fetch(t); state != string(api.StateDone) || body != want.String() {
		t.Errorf("when done: state %q, %d bytes (want %q and %d bytes)", state, len(body), api.StateDone, want.Len())
	}
}
