package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/testwait"
)

// codexCall posts one Codex function call to a codex session and
// returns its output text.
func codexCall(t *testing.T, ts *testServer, sid, name string, args map[string]any) string {
	t.Helper()
	raw, _ := json.Marshal(args)
	id := fmt.Sprintf("c%d", time.Now().UnixNano())
	got := decodeBody[functionOutputs](t, ts.do(t, http.MethodPost, "/v1/sessions/"+sid+"/messages", []any{
		map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": name, "arguments": string(raw)},
	}), http.StatusOK)
	if len(got.Output) != 1 {
		t.Fatalf("outputs %+v", got.Output)
	}
	return outputText(got.Output[0])
}

var sessionIDLine = regexp.MustCompile(`\nProcess running with session ID (\d+)\n`)

// runningSession is the session id of an exec_command answer that says
// its command is still running.
func runningSession(t *testing.T, text string) int {
	t.Helper()
	m := sessionIDLine.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no running session in %q", text)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// pollUntil writes chars to a session once, then polls it (write_stdin
// with no chars) until the output gathered matches want, at most ten
// seconds; it returns the last answer.
func pollUntil(t *testing.T, ts *testServer, sid string, session int, chars string, want *regexp.Regexp, before ...string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var seen strings.Builder
	for _, b := range before {
		seen.WriteString(b)
	}
	for {
		text := codexCall(t, ts, sid, "write_stdin", map[string]any{"session_id": session, "chars": chars, "yield_time_ms": 250})
		chars = ""
		_, out, _ := strings.Cut(text, "\nOutput:\n")
		seen.WriteString(out)
		if want.MatchString(seen.String()) {
			return text
		}
		if strings.Contains(text, "\nProcess exited with code ") {
			t.Fatalf("ended with output %q, which does not match %v", seen.String(), want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("output %q never matched %v; last answer %q", seen.String(), want, text)
		}
	}
}

// TestCodexDrivesInteractiveProgramsUnderATerminal: exec_command with
// tty starts a command under a pseudo-terminal; one still running after
// yield_time_ms answers with Codex's session id, and write_stdin drives
// it: bash's read, then an interactive python3 that exits when told.
func TestCodexDrivesInteractiveProgramsUnderATerminal(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	s := newSessionOf(t, ts, map[string]any{"dialect": "codex", "permissions": map[string]any{"allow": []string{"execute_command"}}})

	text := codexCall(t, ts, s.ID, "exec_command", map[string]any{"cmd": "tty; head -n 1", "tty": true, "yield_time_ms": 250})
	id := runningSession(t, text)
	_, first, _ := strings.Cut(text, "\nOutput:\n")
	last := pollUntil(t, ts, s.ID, id, "hello\n", regexp.MustCompile(`(?s)(hello\r\n.*/dev/pts/\d+\r\n.*hello\r\n|/dev/pts/\d+\r\nhello\r\nhello\r\n)`), first)
	if !strings.Contains(last, "\nProcess exited with code 0\n") {
		t.Errorf("after its input: %q, want the exit", last)
	}
	if again := codexCall(t, ts, s.ID, "write_stdin", map[string]any{"session_id": id, "chars": "x"}); again != fmt.Sprintf("write_stdin failed: Unknown process id %d", id) {
		t.Errorf("a reported exit leaves no session: %q", again)
	}

	// The prompt comes in exec_command's own answer when python3 starts
	// within its yield time, else in a later poll: both count.
	text = codexCall(t, ts, s.ID, "exec_command", map[string]any{"cmd": "python3 -i -q", "tty": true, "yield_time_ms": 250})
	id = runningSession(t, text)
	_, first, _ = strings.Cut(text, "\nOutput:\n")
	if !regexp.MustCompile(`>>> $`).MatchString(first) {
		pollUntil(t, ts, s.ID, id, "", regexp.MustCompile(`>>> $`), first)
	}
	pollUntil(t, ts, s.ID, id, "print(6*7)\n", regexp.MustCompile(`\r\n42\r\n>>> $`))
	last = pollUntil(t, ts, s.ID, id, "exit(5)\n", regexp.MustCompile(`exit\(5\)\r\n`))
	for i := 0; i < 40 && !strings.Contains(last, "Process exited"); i++ {
		last = codexCall(t, ts, s.ID, "write_stdin", map[string]any{"session_id": id, "yield_time_ms": 250})
	}
	if !strings.Contains(last, "\nProcess exited with code 5\n") {
		t.Errorf("python's end: %q", last)
	}
}

// TestCodexTerminalCommandStillAsks: a command that needs approval asks
// under a terminal as on pipes: tty changes how it runs, not whether.
func TestCodexTerminalCommandStillAsks(t *testing.T) {
	ts, dir := newDialectServer(t, coordinator.Config{}, nil)
	s := newSessionOf(t, ts, map[string]any{"dialect": "codex"})
	answered := make(chan string, 1)
	go func() {
		resp, err := ts.Client().Do(ts.request(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", []any{
			map[string]any{"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "exec_command", "arguments": `{"cmd":"touch made","tty":true}`},
		}))
		if err != nil {
			answered <- err.Error()
			return
		}
		resp.Body.Close()
		answered <- resp.Status
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		calls := decodeBody[api.CallsResponse](t, ts.do(t, http.MethodGet, "/v1/sessions/"+s.ID+"/calls?state=awaiting_approval", nil), http.StatusOK)
		if len(calls.Calls) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("exec_command with tty never waited for approval")
		}
		time.Sleep(20 * time.Millisecond)
	}
	decodeBody[map[string]any](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/calls/c1/decision", map[string]any{"decision": "reject"}), http.StatusOK)
	if got := testwait.Receive(t, answered); got != "200 OK" {
		t.Errorf("message answer %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("the rejected command ran")
	}
}

// TestJobStdinRoute: a background job started with stdin reads what a
// client posts to its stdin route; the write is in the audit log as a
// job_stdin entry with the text and the token that wrote it; a job
// without stdin refuses with 409.
func TestJobStdinRoute(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	s := newSessionOf(t, ts, map[string]any{"permissions": map[string]any{"allow": []string{"execute_command"}}})
	start := func(id string, stdin bool) string {
		msg := assistant(toolUse(id, "execute_command", map[string]any{"command": "head -n 1", "requires_approval": false,
			"background": true, "stdin": stdin}))
		resp := decodeBody[api.MessageResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", msg), http.StatusOK)
		m := regexp.MustCompile(`job (job_\d+)`).FindStringSubmatch(fmt.Sprint(resp.Message.Content))
		if m == nil {
			t.Fatalf("no job in %+v", resp.Message.Content)
		}
		return m[1]
	}
	job := start("t1", true)
	base := "/v1/sessions/" + s.ID + "/jobs/" + job
	w := decodeBody[api.JobStdinResponse](t, ts.do(t, http.MethodPost, base+"/stdin", map[string]any{"text": "hi there\n"}), http.StatusOK)
	if w.Written != 9 || !w.Job.Stdin {
		t.Errorf("write answer %+v", w)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := decodeBody[api.JobOutput](t, ts.do(t, http.MethodGet, base+"/output?offset=0", nil), http.StatusOK)
		if out.Output == "hi there\n" && out.Job.State == api.JobExited {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job output %+v", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	audit := decodeBody[api.AuditResponse](t, ts.do(t, http.MethodGet, "/v1/audit?tool=job_stdin", nil), http.StatusOK)
	if len(audit.Calls) != 1 || !strings.Contains(string(audit.Calls[0].Input), `"input":"hi there\n"`) ||
		audit.Calls[0].DecidedBy != "token" || audit.Calls[0].SessionID != s.ID {
		t.Errorf("audit %+v", audit.Calls)
	}
	closed := start("t2", false)
	resp := ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/jobs/"+closed+"/stdin", map[string]any{"text": "x"})
	if e := decodeBody[api.ErrorResponse](t, resp, http.StatusConflict); e.Error.Code != api.CodeConflict {
		t.Errorf("no stdin: %+v", e)
	}
	resp = ts.do(t, http.MethodPost, base+"/stdin", map[string]any{"text": "x", "base64": "eA=="})
	decodeBody[api.ErrorResponse](t, resp, http.StatusBadRequest)
}

// TestCodexWriteStdinRefusedInPlanMode: input to a running command is a
// command plan mode cannot judge, so write_stdin is refused there; the
// job keeps running for act mode.
func TestCodexWriteStdinRefusedInPlanMode(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	s := newSessionOf(t, ts, map[string]any{"dialect": "codex", "permissions": map[string]any{"allow": []string{"execute_command"}}})
	id := runningSession(t, codexCall(t, ts, s.ID, "exec_command", map[string]any{"cmd": "head -n 1", "tty": true, "yield_time_ms": 250}))
	decodeBody[api.Session](t, ts.do(t, http.MethodPatch, "/v1/sessions/"+s.ID, map[string]any{"mode": "plan"}), http.StatusOK)
	got := codexCall(t, ts, s.ID, "write_stdin", map[string]any{"session_id": id, "chars": "rm -rf x\n"})
	if !strings.Contains(got, "not available in plan mode") {
		t.Errorf("write_stdin in plan mode: %q", got)
	}
	decodeBody[api.Session](t, ts.do(t, http.MethodPatch, "/v1/sessions/"+s.ID, map[string]any{"mode": "act"}), http.StatusOK)
	pollUntil(t, ts, s.ID, id, "ok\n", regexp.MustCompile(`ok\r\nok\r\n`))
}

// TestJobTerminalResize: rows and cols on the stdin route resize a tty
// job's terminal before the text is written; a job on pipes has none.
func TestJobTerminalResize(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	s := newSessionOf(t, ts, map[string]any{"permissions": map[string]any{"allow": []string{"execute_command"}}})
	msg := assistant(toolUse("r1", "execute_command", map[string]any{"command": "head -n 1 >/dev/null; stty size", "requires_approval": false,
		"background": true, "tty": true}))
	decodeBody[api.MessageResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", msg), http.StatusOK)
	base := "/v1/sessions/" + s.ID + "/jobs/job_1"
	w := decodeBody[api.JobStdinResponse](t, ts.do(t, http.MethodPost, base+"/stdin", map[string]any{"text": "\n", "rows": 40, "cols": 100}), http.StatusOK)
	if w.Job.Terminal == nil || *w.Job.Terminal != (api.TerminalSize{Rows: 40, Cols: 100}) {
		t.Errorf("job terminal %+v", w.Job.Terminal)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := decodeBody[api.JobOutput](t, ts.do(t, http.MethodGet, base+"/output", nil), http.StatusOK)
		if out.Job.State == api.JobExited {
			if !strings.HasSuffix(out.Output, "40 100\r\n") {
				t.Errorf("output %q, want the new size", out.Output)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %+v", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp := ts.do(t, http.MethodPost, base+"/stdin", map[string]any{"rows": 40})
	decodeBody[api.ErrorResponse](t, resp, http.StatusBadRequest)
}
