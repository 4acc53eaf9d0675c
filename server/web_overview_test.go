package server

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/toolgate/toolgate/api"
)

// inboxCardSel is a CSS selector for the inbox entry of one call.
func inboxCardSel(sid, id string) string {
	return `#inbox li[data-session="` + sid + `"][data-id="` + id + `"]`
}

// exists is a JavaScript predicate: an element matches sel.
func exists(sel string) string {
	return `document.querySelector(` + strconv.Quote(sel) + `) !== null`
}

// waitForCall polls a call over HTTP until it is done, and returns it.
func waitForCall(t *testing.T, env *webEnv, sid, id string) api.CallRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	for {
		resp := env.do(t, http.MethodGet, "/v1/sessions/"+sid+"/calls/"+id, "", auth(nil))
		got := decodeBody[api.CallResponse](t, resp, http.StatusOK)
		if got.Call.State == api.StateDone {
			return got.Call
		}
		select {
		case <-ctx.Done():
			t.Fatalf("call %s/%s never finished; last %+v", sid, id, got.Call)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestBrowserConsoleOverview: the session list shows the sessions, the
// approvals inbox shows a write waiting in another session and approving
// it there runs it, and the event filter hides the other session's events.
func TestBrowserConsoleOverview(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "a\n"})
	a := createWebSession(t, env, `{"mode":"act"}`)
	b := createWebSession(t, env, `{"dialect":"claude_code"}`)
	ctx := newBrowser(t, 60*time.Second)
	openConsole(t, ctx, env)

	t.Run("the session list shows both sessions", func(t *testing.T) {
		row := func(sid string) string { return `#sessions tbody tr[data-session="` + sid + `"]` }
		waitInPage(t, ctx, "both sessions", exists(row(a))+" && "+exists(row(b)))
		if got := evalAsync[int](t, ctx, `document.querySelectorAll("#sessions tbody tr").length`); got != 3 {
			t.Errorf("rows = %d, want default and the two sessions", got)
		}
		if got := evalAsync[string](t, ctx, `document.querySelector(`+strconv.Quote(row(b)+" td:nth-child(2)")+`).textContent`); got != "claude_code" {
			t.Errorf("dialect cell of %s = %q, want claude_code", b, got)
		}
		if !evalAsync[bool](t, ctx, `document.querySelector('#sessions tr[data-session="default"]').classList.contains("current")`) {
			t.Error("the default session is not marked current")
		}
	})

	t.Run("approving from the inbox completes a call of another session", func(t *testing.T) {
		const id = "toolu_inbox1"
		if resp := consolePost(t, env, a, true, toolUse(id, "write_to_file", map[string]any{"path": "from-inbox.txt", "content": "approved in the inbox\n"})); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("post: %d, want 202 while it waits", resp.StatusCode)
		}
		card := inboxCardSel(a, id)
		waitInPage(t, ctx, "the inbox entry", exists(card+" .approval button.approve"))
		if got := evalAsync[string](t, ctx, `document.querySelector(`+strconv.Quote(card+" pre.diff")+`).textContent`); !strings.Contains(got, "+approved in the inbox") {
			t.Errorf("inbox preview = %q, want the diff", got)
		}
		if got := evalAsync[string](t, ctx, `document.querySelector(`+strconv.Quote(card+" .name")+`).textContent`); got != "write_to_file" {
			t.Errorf("inbox tool = %q", got)
		}
		waitInPage(t, ctx, "the session list's waiting count", `document.querySelector('#sessions tr[data-session="`+a+`"] td.waiting')?.textContent === "1"`)
		if _, err := os.Stat(filepath.Join(env.Dir, "from-inbox.txt")); err == nil {
			t.Fatal("the write ran before the decision")
		}
		do(t, ctx, "click Approve in the inbox", chromedp.Click(chromedp.CSS(card+" .approval button.approve")))
		if got := waitForCall(t, env, a, id); got.Status != api.StatusSucceeded {
			t.Fatalf("call after approving = %+v, want succeeded", got)
		}
		if b, err := os.ReadFile(filepath.Join(env.Dir, "from-inbox.txt")); err != nil || string(b) != "approved in the inbox\n" {
			t.Errorf("from-inbox.txt = %q, %v", b, err)
		}
		waitInPage(t, ctx, "the entry to leave the inbox", `!(`+exists(card)+`) && !document.getElementById("inbox-empty").hidden`)
	})

	t.Run("the session filter hides the other session's events", func(t *testing.T) {
		do(t, ctx, "watch session b's events too", chromedp.Click(chromedp.CSS(`#sessions tr[data-session="`+b+`"] input.watch`)))
		waitInPage(t, ctx, "b in the session filter", exists(`#filter-session option[value="`+b+`"]`))
		consolePost(t, env, "default", false, toolUse("toolu_fd1", "read_file", map[string]any{"path": "a.txt"}))
		consolePost(t, env, b, false, toolUse("toolu_fb1", "Read", map[string]any{"file_path": filepath.Join(env.Dir, "a.txt")}))
		mine, theirs := `#timeline li[data-session="default"][data-id="toolu_fd1"]`, `#timeline li[data-session="`+b+`"][data-id="toolu_fb1"]`
		waitInPage(t, ctx, "both sessions' calls", exists(mine+".succeeded")+" && "+exists(theirs+".succeeded"))
		hidden := func(sel string) bool {
			return evalAsync[bool](t, ctx, `document.querySelector(`+strconv.Quote(sel)+`).hidden`)
		}
		if hidden(mine) || hidden(theirs) {
			t.Fatal("a card is hidden before any filter")
		}
		evalAsync[bool](t, ctx, `(() => { const s = document.getElementById("filter-session"); s.value = "default"; s.dispatchEvent(new Event("change", {bubbles: true})); return true })()`)
		if !hidden(theirs) || hidden(mine) {
			t.Errorf("with the filter on default: b's card hidden = %v, default's hidden = %v; want only b's hidden", hidden(theirs), hidden(mine))
		}
		if evalAsync[bool](t, ctx, `[...document.querySelectorAll("#timeline > li")].some(li => !li.hidden && li.dataset.session !== "default")`) {
			t.Error("an entry of another session is still shown")
		}
		evalAsync[bool](t, ctx, `(() => { const k = document.getElementById("filter-kind"); k.value = "failed"; k.dispatchEvent(new Event("change", {bubbles: true})); return true })()`)
		if !hidden(mine) {
			t.Error("the kind filter (not succeeded) shows a succeeded call")
		}
	})
}
