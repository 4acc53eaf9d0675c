package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgate/toolgate/api"
)

// TestBrowserConsoleTerminal: an interactive bash started as a tty
// background job through the API shows in the console's jobs view; its
// terminal panel sends the panel's size, then each keystroke to the job's
// stdin, and shows the output read on from each next_offset, prompt and
// echo included, with the shell's control sequences interpreted.
func TestBrowserConsoleTerminal(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	jsonHdr := auth(map[string]string{"Content-Type": "application/json"})
	resp := env.do(t, "POST", "/v1/sessions", `{"id":"term","mode":"act","permissions":{"allow":["execute_command"]}}`, jsonHdr)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create session: status %d", resp.StatusCode)
	}
	startApproved(t, env, "term", `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_term1","name":"execute_command",`+
		`"input":{"command":"PS1='term$ ' bash --norc -i","requires_approval":false,"background":true,"tty":true}}]}`)

	ctx := newBrowser(t, 60*time.Second)
	do(t, ctx, "open the console", chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.ID("token")))
	do(t, ctx, "paste the token", chromedp.SendKeys(chromedp.ID("token"), testToken), chromedp.Click(chromedp.CSS("#login button")))
	waitInPage(t, ctx, "the session in the list", `document.querySelector('#sessions tr[data-session="term"] button.link') !== null`)
	do(t, ctx, "pick the session", chromedp.Click(chromedp.CSS(`#sessions tr[data-session="term"] button.link`)))
	waitInPage(t, ctx, "the job in the jobs view", `document.querySelector('#jobs tr[data-job="job_1"] button') !== null`)
	if got := evalAsync[string](t, ctx, `document.querySelector('#jobs tr[data-job="job_1"] button').textContent`); got != "terminal" {
		t.Errorf("job_1 opens as %q, want terminal", got)
	}
	do(t, ctx, "open the terminal", chromedp.Click(chromedp.CSS(`#jobs tr[data-job="job_1"] button`)))
	waitInPage(t, ctx, "the prompt", `document.getElementById("term").textContent.includes("term$ ")`)

	do(t, ctx, "type a command", chromedp.SendKeys(chromedp.ID("term"), "echo hi$((1+1))\r"))
	waitInPage(t, ctx, "the command's output", `document.getElementById("term").textContent.split("\n").includes("hi2")`)

	// The size went to the job: the panel's, not the default 80x24.
	job := decodeBody[api.Job](t, env.do(t, "GET", "/v1/sessions/term/jobs/job_1", "", auth(nil)), http.StatusOK)
	want := evalAsync[api.TerminalSize](t, ctx, `termSize(document.getElementById("term"))`)
	if job.Terminal == nil || *job.Terminal != want || *job.Terminal == (api.TerminalSize{Rows: 24, Cols: 80}) {
		t.Errorf("job terminal %+v, want the panel's %+v", job.Terminal, want)
	}

	// Ctrl-C reaches the terminal as \x03: the shell drops the half-typed
	// line. (The terminal also drops input not read yet, as any does, so
	// the line is echoed first.)
	do(t, ctx, "type", chromedp.SendKeys(chromedp.ID("term"), "echo never"))
	waitInPage(t, ctx, "the echo", `document.getElementById("term").textContent.endsWith("term$ echo never")`)
	do(t, ctx, "Ctrl-C", chromedp.KeyEvent("c", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	waitInPage(t, ctx, "a new prompt after ^C", `document.getElementById("term").textContent.endsWith("term$ echo never^C\nterm$ ")`)
	do(t, ctx, "exit", chromedp.SendKeys(chromedp.ID("term"), "exit 3\r"))
	waitInPage(t, ctx, "the end of the job", `document.getElementById("term-note").textContent === "[job exited, exit 3]"`)
	text := evalAsync[string](t, ctx, `document.getElementById("term").textContent`)
	if n := countLines(text, "hi2"); n != 1 {
		t.Errorf("hi2 shown %d times, want once (no output read twice):\n%s", n, strconv.Quote(text))
	}

	// The screen: carriage return and backspace overwrite, cursor moves
	// and erase in line apply, colours and titles are dropped, and a
	// sequence split between two reads is kept for the next.
	got := evalAsync[string](t, ctx, `(() => {
		const s = newScreen(false);
		for (const chunk of ["abc\b\bX\r\n", "xy\rz\r\n\x1b[3", "1mred\x1b[0m\r\n", "\x1b]0;title\x07ok\r\n", "abcd\x1b[3D\x1b[K\r\n", "\x1b[?2004hend"]) feed(s, chunk);
		return s.lines.join("|");
	})()`)
	if want := "aXc|zy|red|ok|a|end"; got != want {
		t.Errorf("screen %q, want %q", got, want)
	}
}

// countLines counts the lines equal to s.
func countLines(text, s string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if l == s {
			n++
		}
	}
	return n
}

// startApproved posts a message whose one call, toolu_term1, waits for a
// decision (an interactive shell is a command no rule approves), approves
// it, and waits for the message's answer.
func startApproved(t *testing.T, env *webEnv, sid, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	posted := make(chan error, 1)
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.URL+"/v1/sessions/"+sid+"/messages", strings.NewReader(msg))
		if err != nil {
			posted <- err
			return
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := testHTTP.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
		}
		posted <- err
	}()
	for {
		resp := env.do(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/toolu_term1/decision", `{"decision":"approve"}`,
			auth(map[string]string{"Content-Type": "application/json"}))
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		select {
		case err := <-posted:
			t.Fatalf("the message was answered before its approval: %v", err)
		case <-ctx.Done():
			t.Fatalf("approve toolu_term1: status %d", resp.StatusCode)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := <-posted; err != nil {
		t.Fatalf("post the message: %v", err)
	}
}
