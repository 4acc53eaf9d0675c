package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgate/toolgate/api"
)

// TestBrowserEventSourceResumes: headless chromium's own EventSource on a
// ticket loses its connection (the server cuts it) and reconnects by
// itself with the same URL and Last-Event-ID, as the HTML standard's
// EventSource does; every event of the session arrives exactly once,
// those published while it was away included. Then the page replaces its
// EventSource with a new one on the same URL, which sends no
// Last-Event-ID: the server remembers where the ticket's stream stopped,
// so the new one does not get the window again.
func TestBrowserEventSourceResumes(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "a\n"})
	ctx := newBrowser(t, 90*time.Second)
	tk := mintTicket(t, env, "default")
	do(t, ctx, "open the console page", chromedp.Navigate(env.URL+"/"))
	types, _ := json.Marshal([]string{api.EventToolQueued, api.EventToolPartial, api.EventToolAwaitingApproval, api.EventToolAwaitingInput,
		api.EventToolStarted, api.EventToolOutput, api.EventToolFinished, api.EventMessageFinished, api.EventTodosUpdated, api.EventTaskProgress})
	evalAsync[bool](t, ctx, js(`(() => {
		window.got = []; window.opens = 0; window.finished = [];
		window.connect = () => {
			const es = new EventSource({{URL}});
			es.onopen = () => { window.opens++; };
			for (const type of `+string(types)+`) {
				es.addEventListener(type, (e) => {
					window.got.push(Number(e.lastEventId));
					if (type === "message.finished") window.finished.push(JSON.parse(e.data).message_id);
				});
			}
			window.es = es;
		};
		window.connect();
		return true;
	})()`, map[string]string{"URL": "/v1/sessions/default/events?ticket=" + tk}))
	waitInPage(t, ctx, "the stream to open", `window.opens === 1`)

	post := func(i int) string {
		t.Helper()
		id := fmt.Sprintf("msg_resume_%d", i)
		body := fmt.Sprintf(`{"id":%q,"role":"assistant","content":[{"type":"tool_use","id":"toolu_r%d","name":"read_file","input":{"path":"a.txt"}}]}`, id, i)
		resp := env.do(t, "POST", "/v1/sessions/default/messages", body, auth(map[string]string{"Content-Type": "application/json"}))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST message %d: status %d", i, resp.StatusCode)
		}
		return id
	}
	waitFinished := func(id string) {
		t.Helper()
		waitInPage(t, ctx, "message.finished of "+id, `window.finished.includes(`+jsString(id)+`)`)
	}

	waitFinished(post(1))
	env.srv.CloseClientConnections() // the connection drops
	missed := post(2)                // published while the browser is away
	waitInPage(t, ctx, "the EventSource to reconnect", `window.opens === 2`)
	waitFinished(missed)
	waitFinished(post(3))

	// A new EventSource on the same ticket, as a page makes after its
	// EventSource gave up; it sends no Last-Event-ID.
	evalAsync[bool](t, ctx, `(() => { window.es.close(); window.connect(); return true; })()`)
	waitInPage(t, ctx, "the new EventSource to open", `window.opens === 3`)
	waitFinished(post(4))

	got := evalAsync[[]int64](t, ctx, `window.got`)
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1]+1 {
			t.Fatalf("event ids %v: want each id once, in order, none missing", got)
		}
	}
	if len(got) < 12 { // queued, started, finished and message.finished, four times
		t.Errorf("got %d events %v, want every event of four messages", len(got), got)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
