package typescript

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's chromium; without it the test skips, unless
// CI is set, where a missing browser is a failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("TOOLGATE_CHROMIUM"), "/usr/bin/chromium"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found (apt-get install -y chromium)")
	}
	t.Skip("chromium not found; apt-get install -y chromium")
	return ""
}

// newTab starts a headless chromium with a fresh profile, where *.test
// names resolve to 127.0.0.1, and returns a tab bounded by timeout.
func newTab(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("host-resolver-rules", "MAP *.test 127.0.0.1"),
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancel()
	})
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return tab
}

// eval evaluates a JavaScript expression in the page, awaiting the
// promise it returns, and decodes its value into T.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate: %v\n%s", err, js)
	}
	return v
}

// waitInPage polls a JavaScript predicate in the page until it holds, for
// at most 30 seconds.
func waitInPage(t *testing.T, ctx context.Context, what, predicate string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](predicate, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({got: window.got, error: window.streamError, sources: window.eventSources})`))
		t.Fatalf("waiting for %s: %v\npage: %s", what, err, state)
	}
}

// quote makes s a JavaScript string literal.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// pageServer serves the test page and the package's browser bundle on
// http://ide.test:PORT, another origin than toolgate's, as an extension's
// page or a web IDE is.
func pageServer(t *testing.T, dir string) string {
	t.Helper()
	files := map[string]string{
		"/":                    filepath.Join(dir, "test", "browser", "index.html"),
		"/page.js":             filepath.Join(dir, "test", "browser", "page.js"),
		"/toolgate.browser.js": filepath.Join(dir, "dist", "toolgate.browser.js"),
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(p, ".js") {
			w.Header().Set("Content-Type", "text/javascript")
		}
		http.ServeFile(w, r, p)
	}))
	t.Cleanup(hs.Close)
	return strings.Replace(hs.URL, "127.0.0.1", "ide.test", 1)
}

// TestBrowserBundle drives the package's browser bundle in headless
// chromium from a page of another origin: a call, an approval decided by
// onApproval, and an event stream on the browser's own EventSource that
// resumes after the proxy cuts it, losing and repeating nothing.
func TestBrowserBundle(t *testing.T) {
	dir := built(t)
	srv := startServer(t, map[string]any{"server": map[string]any{"allowed_origins": []string{"http://ide.test:*"}}})
	page := pageServer(t, dir)
	ctx := newTab(t, 2*time.Minute)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(page+"/")); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	waitInPage(t, ctx, "the page script", `document.getElementById("status")?.textContent === "ready"`)
	eval[bool](t, ctx, fmt.Sprintf(`window.setup(%s, %s)`, quote(srv.proxy.URL()), quote(srv.token)))

	t.Run("a call", func(t *testing.T) {
		res := eval[struct {
			ToolUseID string `json:"tool_use_id"`
			IsError   bool   `json:"is_error"`
			Content   []struct {
				Text string `json:"text"`
			} `json:"content"`
		}](t, ctx, `window.call()`)
		if res.ToolUseID != "toolu_page_1" || res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, strings.TrimSpace(workspaceFile)) {
			t.Errorf("tool_result = %+v, want a.txt's text", res)
		}
	})
	t.Run("an approval", func(t *testing.T) {
		res := eval[struct {
			Result struct {
				IsError bool `json:"is_error"`
			} `json:"result"`
			Asked []struct {
				Name  string   `json:"name"`
				Paths []string `json:"paths"`
			} `json:"asked"`
			Conflict string `json:"conflict"`
		}](t, ctx, `window.approval()`)
		if res.Result.IsError || len(res.Asked) != 1 || res.Asked[0].Name != "read_file" || len(res.Asked[0].Paths) != 1 || res.Asked[0].Paths[0] != "a.txt" {
			t.Errorf("approval = %+v, want one approval of read_file on a.txt and a result", res)
		}
		if res.Conflict != "conflict" {
			t.Errorf("deciding the decided call: %q, want a ConflictError with code conflict", res.Conflict)
		}
	})
	t.Run("a stream resumed after the connection drops", func(t *testing.T) {
		resumedStream(t, ctx, srv, false)
	})
	// An EventSource that gets an answer other than 200 gives up for good
	// (readyState CLOSED); the client opens a new one on a new ticket, whose
	// stream starts at the window's oldest event, and skips the events it
	// already yielded.
	t.Run("a stream whose EventSource gives up is reopened on a new ticket", func(t *testing.T) {
		resumedStream(t, ctx, srv, true)
	})
}

// resumedStream watches a new session's events in the page, cuts the
// proxy while a message runs, and checks every event arrived once, in
// order. With givesUp the proxy answers 503 while cut, so the page's
// EventSource gives up and the client must open another.
func resumedStream(t *testing.T, ctx context.Context, srv *server, givesUp bool) {
	cut, minSources := srv.proxy.Cut, 1
	if givesUp {
		cut, minSources = srv.proxy.CutFailing, 2
	}
	before := eval[int](t, ctx, `window.eventSources`)
	sid := eval[string](t, ctx, `window.watch()`)
	post := func(id string) string {
		t.Helper()
		var res struct {
			MessageID string `json:"message_id"`
		}
		msg := map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "read_file", "input": map[string]any{"path": "a.txt"}}}}
		if err := srv.post("/v1/sessions/"+sid+"/messages", msg, &res); err != nil {
			t.Fatal(err)
		}
		return res.MessageID
	}
	finished := func(mid string) string {
		return `(window.got ?? []).some(e => e.type === "message.finished" && e.message_id === ` + quote(mid) + `)`
	}
	waitInPage(t, ctx, "message 1", finished(post("toolu_s1")))
	cut()                      // the stream drops, reconnects are refused
	missed := post("toolu_s2") // published while the page is away
	if givesUp {
		waitInPage(t, ctx, "the EventSource to give up", `window.sources.at(-1).readyState === EventSource.CLOSED`)
	}
	srv.proxy.Restore()
	waitInPage(t, ctx, "message 2, published while cut", finished(missed))
	waitInPage(t, ctx, "message 3", finished(post("toolu_s3")))
	eval[bool](t, ctx, `(window.ctrl.abort(), true)`)

	got := eval[[]struct {
		ID   int64  `json:"id"`
		Type string `json:"type"`
	}](t, ctx, `window.got`)
	for i := range got {
		if got[i].ID != int64(i+1) {
			t.Fatalf("event ids %v: want 1, 2, 3... each once", got)
		}
	}
	if len(got) != 12 { // queued, started, finished, message.finished, three times
		t.Errorf("got %d events %v, want the 12 of three messages", len(got), got)
	}
	if n := eval[int](t, ctx, `window.eventSources`) - before; n < minSources {
		t.Errorf("the page made %d EventSources, want at least %d", n, minSources)
	}
}
