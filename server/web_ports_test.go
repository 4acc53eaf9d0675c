package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestBrowserConsolePorts: a web server started as a background job
// shows in the console's ports list of the session, on its
// port.listening event; its link gets a fresh ticket and opens the
// preview URL with it in a new tab without an opener, and that URL
// serves the server's page to the browser.
func TestBrowserConsolePorts(t *testing.T) {
	registerConsoleDecoders() // the preview's page is text/html
	s := newNetworkServer(t, sandbox.Config{})
	sid := s.session(t)
	if text, isErr := s.run(t, sid, "warm", "true"); isErr {
		t.Fatalf("first command: %s", text)
	}
	ctx := pickSessionInConsole(t, s.url, sid)
	waitInPage(t, ctx, "the empty ports list", `document.getElementById("ports-note").textContent === "no listening ports in this session"`)

	resp := decodeJSON[api.MessageResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages",
		message(backgroundUse("srv", "exec python3 -m http.server 8123 --bind 127.0.0.1")), ""), http.StatusOK)
	if resp.Message.Content[0].IsError {
		t.Fatalf("start the server: %+v", resp.Message.Content[0])
	}
	// The list is read again on the event: no refresh is clicked.
	waitInPage(t, ctx, "port 8123 in the list", `document.querySelector('#ports a[data-port="8123"]') !== null`)
	if rel := evalAsync[string](t, ctx, `document.querySelector('#ports a[data-port="8123"]').rel`); rel != "noopener" {
		t.Errorf("the link's rel is %q, want noopener", rel)
	}

	// The click opens a new tab: record where, and how.
	evalAsync[bool](t, ctx, `window.opened = []; window.open = (...a) => { window.opened.push(a); return null; }; true`)
	do(t, ctx, "click the port", chromedp.Click(chromedp.CSS(`#ports a[data-port="8123"]`)))
	waitInPage(t, ctx, "the preview opened", `window.opened.length === 1`)
	opened := evalAsync[[]string](t, ctx, `window.opened[0]`)
	want := "/v1/sessions/" + sid + "/ports/8123/?ticket="
	if len(opened) != 3 || len(opened[0]) <= len(want) || opened[0][:len(want)] != want || opened[1] != "_blank" || opened[2] != "noopener" {
		t.Fatalf("window.open(%q), want (%q+ticket, _blank, noopener)", opened, want)
	}
	// The ticketed URL serves the directory listing to the browser (the
	// ticket becomes the port's cookie on the way); a second click gets
	// a ticket of its own.
	body := evalAsync[string](t, ctx, `fetch(window.opened[0][0]).then((r) => r.ok ? r.text() : "HTTP " + r.status)`)
	if !strings.Contains(body, "Directory listing for /") {
		t.Fatalf("the preview answered %q", body)
	}
	do(t, ctx, "click again", chromedp.Click(chromedp.CSS(`#ports a[data-port="8123"]`)))
	waitInPage(t, ctx, "the preview opened again", `window.opened.length === 2`)
	if again := evalAsync[string](t, ctx, `window.opened[1][0]`); again == opened[0] {
		t.Errorf("the second click reused the ticket: %q", again)
	}
}

// TestBrowserConsolePortsConflict: where the sandbox gives sessions no
// network of their own, the ports list shows the route's reason.
func TestBrowserConsolePortsConflict(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.AllowAll = true
	cfg.Sandbox = sandbox.Config{Mode: sandbox.ModeOff}
	f := newFixture(t, fixtureOptions{config: cfg, server: Config{Token: testToken}})
	s := &execServer{url: f.url, dir: f.dir, coord: f.coord}
	sid := s.session(t)
	if text, isErr := s.run(t, sid, "c1", "true"); isErr {
		t.Fatalf("command: %s", text)
	}
	ctx := pickSessionInConsole(t, s.url, sid)
	waitInPage(t, ctx, "the reason", `document.getElementById("ports-note").textContent.includes("the sandbox is off")`)
	if n := evalAsync[int](t, ctx, `document.querySelectorAll("#ports li").length`); n != 0 {
		t.Errorf("%d ports listed, want none", n)
	}
}

// pickSessionInConsole opens the console at url, logs in and picks sid
// from the session list.
func pickSessionInConsole(t *testing.T, url, sid string) context.Context {
	t.Helper()
	ctx := newBrowser(t, 60*time.Second)
	row := `#sessions tr[data-session="` + sid + `"] button.link`
	do(t, ctx, "open the console", chromedp.Navigate(url+"/"), chromedp.WaitVisible(chromedp.ID("token")))
	do(t, ctx, "paste the token", chromedp.SendKeys(chromedp.ID("token"), testToken), chromedp.Click(chromedp.CSS("#login button")))
	waitInPage(t, ctx, "the session in the list", `document.querySelector('`+row+`') !== null`)
	do(t, ctx, "pick the session", chromedp.Click(chromedp.CSS(row)))
	return ctx
}
