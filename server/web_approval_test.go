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
		// The decision's own answer may come after the event stream's news.
		waitInPage(t, ctx, "the note to say approved", inCard("toolu_approve1", ".approval .muted")+` === "approved"`)
	})
	t.Run("reject passes the feedback to the result", func(t *testing.T) {
		const feedback = "keep the old line, add a heading instead"
		postFromConsole(t, ctx, "toolu_reject1", "write_to_file", `{"path":"notes.txt","content":"overwritten\n"}`)
		waitInPage(t, ctx, "the Reject button", `document.querySelector(`+strconv.Quote(card("toolu_reject1")+" .approval button.reject")+`) !== null`)
		waitInPage(t, ctx, "the feedback field", `document.querySelector(`+strconv.Quote(card("toolu_reject1")+" .approval input.feedback")+`) !== null`)
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
	t.Run("approve with remember lets the same call through next time", func(t *testing.T) {
		const again = "written twice\n"
		postFromConsole(t, ctx, "toolu_remember1", "write_to_file", `{"path":"notes.txt","content":"written once\n"}`)
		waitInPage(t, ctx, "the remember box", `document.querySelector(`+strconv.Quote(card("toolu_remember1")+" .approval input.remember")+`) !== null`)
		do(t, ctx, "tick remember, click Approve",
			chromedp.Click(chromedp.CSS(card("toolu_remember1")+" .approval input.remember")),
			chromedp.Click(chromedp.CSS(card("toolu_remember1")+" .approval button.approve")))
		waitInPage(t, ctx, "the first write to succeed", inCard("toolu_remember1", ".state")+` === "succeeded"`)
		postFromConsole(t, ctx, "toolu_remember2", "write_to_file", `{"path":"notes.txt","content":`+strconv.Quote(again)+`}`)
		waitInPage(t, ctx, "the second write to succeed", inCard("toolu_remember2", ".state")+` === "succeeded"`)
		if got := evalAsync[bool](t, ctx, `document.querySelector(`+strconv.Quote(card("toolu_remember2")+" .approval")+`) !== null`); got {
			t.Error("the second, remembered write was asked about")
		}
		if b, _ := os.ReadFile(filepath.Join(env.Dir, "notes.txt")); string(b) != again {
			t.Errorf("notes.txt = %q, want %q", b, again)
		}
	})
}

// firstLineWatch records, the moment line1 first shows in the call's
// output, what the card looked like: the proof that output was drawn while
// the command still ran, taken by the page itself rather than by a poll
// that could come late.
const firstLineWatch = `(() => {
  window.firstLine = null;
  new MutationObserver((_, obs) => {
    const card = document.querySelector({{CARD}});
    const out = card?.querySelector("pre.output")?.textContent || "";
    if (!out.includes("line1")) return;
    window.firstLine = {output: out, state: card.querySelector(".state").textContent, result: card.querySelector("pre.result") !== null};
    obs.disconnect();
  }).observe(document.getElementById("timeline"), {childList: true, subtree: true, characterData: true});
  return true;
})()`

func TestBrowserConsoleStreamsOutput(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	ctx := newBrowser(t, 45*time.Second)
	openConsole(t, ctx, env)
	const id = "toolu_stream1"
	evalAsync[bool](t, ctx, js(firstLineWatch, map[string]string{"CARD": card(id)}))

	postFromConsole(t, ctx, id, "execute_command", `{"command":"for i in 1 2 3; do echo line$i; sleep 0.2; done","requires_approval":false}`)
	// A compound command line always asks under the default policy.
	approve := card(id) + " .approval button.approve"
	waitInPage(t, ctx, "the Approve button", `document.querySelector(`+strconv.Quote(approve)+`) !== null`)
	t.Run("the approval shows the command, its parts and risks", func(t *testing.T) {
		got := evalAsync[string](t, ctx, inCard(id, "pre.diff"))
		for _, want := range []string{"$ for i in 1 2 3; do echo line$i", "\n  echo line$i\n", "\n  sleep 0.2", "risks: compound"} {
			if !strings.Contains(got, want) {
				t.Errorf("approval preview = %q, want it to hold %q (from approval.preview)", got, want)
			}
		}
	})
	do(t, ctx, "click Approve", chromedp.Click(chromedp.CSS(approve)))
	waitInPage(t, ctx, "the first line", `window.firstLine !== null`)
	waitInPage(t, ctx, "tool.finished succeeded", inCard(id, ".state")+` === "succeeded"`)

	first := evalAsync[map[string]any](t, ctx, `window.firstLine`)
	t.Run("the first line shows while the command runs", func(t *testing.T) {
		if first["state"] == "succeeded" || first["result"] == true {
			t.Errorf("when line1 appeared the card was %v, want a running call", first)
		}
		if out, _ := first["output"].(string); strings.Contains(out, "line3") {
			t.Errorf("output when line1 appeared = %q, want it without line3", out)
		}
	})
	t.Run("the whole output is there at the end", func(t *testing.T) {
		if got := evalAsync[string](t, ctx, inCard(id, "pre.output")); got != "line1\nline2\nline3\n" {
			t.Errorf("output = %q, want the three lines", got)
		}
	})
}
