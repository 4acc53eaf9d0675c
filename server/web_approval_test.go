package server

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// openConsole loads the console and connects it with the token, waiting
// until the event stream is live so no event of a later call is missed.
func openConsole(t *testing.T, ctx context.Context, env *webEnv) {
	t.Helper()
	do(t, ctx, "open the console", chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.ID("token")))
	do(t, ctx, "paste the token", chromedp.SendKeys(chromedp.ID("token"), testToken), chromedp.Click(chromedp.CSS("#login button")))
	waitInPage(t, ctx, "the live stream", `document.getElementById("stream").textContent.startsWith("live")`)
}

// postFromConsole posts one assistant message through the console's
// message form, as a user would. It first waits for the answer to the
// previous post, because the console refills the form once that arrives.
func postFromConsole(t *testing.T, ctx context.Context, id, tool, input string) {
	t.Helper()
	waitInPage(t, ctx, "the previous post's answer", `document.getElementById("result").textContent !== "running…"`)
	msg := `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"` + tool + `","input":` + input + `}]}`
	evalAsync[bool](t, ctx, js(`(document.getElementById("message").value = {{MSG}}, true)`, map[string]string{"MSG": msg}))
	do(t, ctx, "post "+id, chromedp.Click(chromedp.CSS("#message-form button")))
}

// card is a CSS selector for the timeline card of one call.
func card(id string) string {
	return `#timeline .ev.call[data-id="` + id + `"]`
}

// inCard is a JavaScript expression: the text of the first element under
// the call's card matching sel, or "".
func inCard(id, sel string) string {
	return `(document.querySelector(` + strconv.Quote(card(id)+" "+sel) + `)?.textContent || "")`
}

func TestBrowserConsoleApprovals(t *testing.T) {
	const oldText, newText = "old line\n", "new line from the console\n"
	env := newWebEnv(t, nil, map[string]string{"notes.txt": oldText})
	ctx := newBrowser(t, 45*time.Second)
	openConsole(t, ctx, env)

	t.Run("approve runs a pending write_to_file", func(t *testing.T) {
		postFromConsole(t, ctx, "toolu_approve1", "write_to_file", `{"path":"notes.txt","content":`+strconv.Quote(newText)+`}`)
		waitInPage(t, ctx, "the Approve button", `document.querySelector(`+strconv.Quote(card("toolu_approve1")+" .approval button.approve")+`) !== null`)
		if got := evalAsync[string](t, ctx, inCard("toolu_approve1", "pre.diff")); !strings.Contains(got, "+new line from the console") || !strings.Contains(got, "-old line") {
			t.Errorf("approval preview = %q, want the diff from approval.preview.diff", got)
		}
		if got := evalAsync[string](t, ctx, inCard("toolu_approve1", ".state")); got != "awaiting_approval" {
			t.Errorf("state before the decision = %q, want awaiting_approval", got)
		}
		if b, _ := os.ReadFile(filepath.Join(env.Dir, "notes.txt")); string(b) != oldText {
			t.Errorf("notes.txt before the decision = %q, want it untouched", b)
		}
		do(t, ctx, "click Approve", chromedp.Click(chromedp.CSS(card("toolu_approve1")+" .approval button.approve")))
		waitInPage(t, ctx, "tool.finished succeeded", inCard("toolu_approve1", ".state")+` === "succeeded"`)
		if b, err := os.ReadFile(filepath.Join(env.Dir, "notes.txt")); err != nil || string(b) != newText {
			t.Errorf("notes.txt after approving = %q (%v), want %q", b, err, newText)
		}
		if got := evalAsync[string](t, ctx, inCard("toolu_approve1", ".approval .muted")); got != "approved" {
			t.Errorf("approval note = %q, want approved", got)
		}
	})
	t.Run("reject passes the feedback to the result", func(t *testing.T) {
		const feedback = "keep the old line, add a heading instead"
		postFromConsole(t, ctx, "toolu_reject1", "write_to_file", `{"path":"notes.txt","content":"overwritten\n"}`)
		waitInPage(t, ctx, "the Reject button", `document.querySelector(`+strconv.Quote(card("toolu_reject1")+" .approval button.reject")+`) !== null`)
		do(t, ctx, "reject with feedback",
			chromedp.SendKeys(chromedp.CSS(card("toolu_reject1")+" .approval input.feedback"), feedback),
			chromedp.Click(chromedp.CSS(card("toolu_reject1")+" .approval button.reject")))
		waitInPage(t, ctx, "tool.finished denied", inCard("toolu_reject1", ".state")+` === "denied"`)
		if got := evalAsync[string](t, ctx, inCard("toolu_reject1", "pre.result")); !strings.Contains(got, feedback) {
			t.Errorf("timeline result = %q, want the feedback %q", got, feedback)
		}
		waitInPage(t, ctx, "the message result", `document.getElementById("result").textContent.includes(`+strconv.Quote(feedback)+`)`)
		if b, _ := os.ReadFile(filepath.Join(env.Dir, "notes.txt")); string(b) != newText {
			t.Errorf("notes.txt after rejecting = %q, want %q", b, newText)
		}
	})
}
