package server

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const helloFile = "hello from the workspace"

// js fills {{NAME}} placeholders in a script with quoted values.
func js(script string, vars map[string]string) string {
	for k, v := range vars {
		script = strings.ReplaceAll(script, "{{"+k+"}}", strconv.Quote(v))
	}
	return script
}

func TestBrowserConsole(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{
		"hello.txt": helloFile + "\n",
		"xss.txt":   `<img src=x onerror="document.body.dataset.pwned=1"><b id="pwn">bold</b>` + "\n",
		"pixel.png": onePixelPNG(t),
	})
	ctx := newBrowser(t, 45*time.Second)

	t.Run("loads without a token and connects with one", func(t *testing.T) {
		do(t, ctx, "open the console", chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.ID("token")))
		if got := evalAsync[string](t, ctx, `document.getElementById("status").textContent`); got != "not connected" {
			t.Errorf("status before the token = %q, want not connected", got)
		}
		do(t, ctx, "paste the token", chromedp.SendKeys(chromedp.ID("token"), testToken), chromedp.Click(chromedp.CSS("#login button")))
		waitInPage(t, ctx, "the tool list", `document.querySelector('#tools button[data-tool="read_file"]') !== null`)
		waitInPage(t, ctx, "the live stream", `document.getElementById("stream").textContent.startsWith("live")`)
		if got := evalAsync[string](t, ctx, `sessionStorage.getItem("toolgate.token")`); got != testToken {
			t.Errorf("sessionStorage token = %q, want the token", got)
		}
		if got := evalAsync[int](t, ctx, `localStorage.length + document.cookie.length`); got != 0 {
			t.Errorf("localStorage and cookies hold %d entries, want none", got)
		}
	})
	t.Run("form from the schema runs read_file", func(t *testing.T) {
		do(t, ctx, "pick read_file", chromedp.Click(chromedp.CSS(`#tools button[data-tool="read_file"]`)), chromedp.WaitVisible(chromedp.ID("f-path")))
		if !evalAsync[bool](t, ctx, `document.getElementById("f-path").required`) {
			t.Error("the path field is not marked required")
		}
		do(t, ctx, "run read_file", chromedp.SendKeys(chromedp.ID("f-path"), "hello.txt"), chromedp.Click(chromedp.ID("run")))
		waitInPage(t, ctx, "the result", `document.getElementById("result").textContent.includes(`+strconv.Quote(helloFile)+`)`)
		waitInPage(t, ctx, "the timeline card", `[...document.querySelectorAll("#timeline .ev.call.succeeded .name")].some(e => e.textContent === "read_file")`)
		waitInPage(t, ctx, "the latency row", `document.querySelector('#metrics tr[data-tool="read_file"]') !== null`)
	})
	t.Run("tool output is shown as text", func(t *testing.T) {
		evalAsync[string](t, ctx, `document.getElementById("f-path").value = ""`)
		do(t, ctx, "read a file holding HTML", chromedp.SendKeys(chromedp.ID("f-path"), "xss.txt"), chromedp.Click(chromedp.ID("run")))
		waitInPage(t, ctx, "the result", `document.getElementById("result").textContent.includes('<b id="pwn">')`)
		waitInPage(t, ctx, "the timeline card", `document.querySelectorAll("#timeline .ev.call.succeeded").length >= 2`)
		if evalAsync[bool](t, ctx, `document.getElementById("pwn") !== null || document.body.dataset.pwned === "1"`) {
			t.Error("file content was rendered as HTML")
		}
	})
	t.Run("posts a whole message", func(t *testing.T) {
		msg := `{"role":"assistant","content":[{"type":"text","text":"listing"},{"type":"tool_use","id":"toolu_msg1","name":"list_files","input":{"path":"."}}]}`
		evalAsync[bool](t, ctx, js(`(document.getElementById("message").value = {{MSG}}, true)`, map[string]string{"MSG": msg}))
		do(t, ctx, "post the message", chromedp.Click(chromedp.CSS("#message-form button")))
		waitInPage(t, ctx, "the listing", `document.getElementById("result").textContent.includes("xss.txt")`)
		waitInPage(t, ctx, "message.finished", `[...document.querySelectorAll("#timeline .ev .name")].some(e => e.textContent === "message finished")`)
	})
	t.Run("image results are shown as images", func(t *testing.T) {
		// browser_action's screenshots and read_file's images are image
		// blocks; the console draws them instead of printing base64.
		msg := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_img1","name":"read_file","input":{"path":"pixel.png"}}]}`
		evalAsync[bool](t, ctx, js(`(document.getElementById("message").value = {{MSG}}, true)`, map[string]string{"MSG": msg}))
		do(t, ctx, "post the message", chromedp.Click(chromedp.CSS("#message-form button")))
		waitInPage(t, ctx, "the image", `(() => { const i = document.querySelector("#result img.shot"); return i !== null && i.complete && i.naturalWidth === 1 })()`)
		waitInPage(t, ctx, "the timeline image", `document.querySelector("#timeline img.shot") !== null`)
		if evalAsync[bool](t, ctx, `document.getElementById("result").textContent.includes("iVBOR")`) {
			t.Error("the image's base64 is printed as text")
		}
	})
	t.Run("the task checklist a call carries is shown", func(t *testing.T) {
		// Cline adds task_progress to every tool (focus chain); the console
		// shows the latest list, live and after a reload.
		msg := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_tp1","name":"read_file","input":{"path":"hello.txt","task_progress":"- [x] read hello.txt\n- [ ] <b>edit</b> it"}}]}`
		evalAsync[bool](t, ctx, js(`(document.getElementById("message").value = {{MSG}}, true)`, map[string]string{"MSG": msg}))
		do(t, ctx, "post the message", chromedp.Click(chromedp.CSS("#message-form button")))
		waitInPage(t, ctx, "the checklist", `document.querySelectorAll("#progress li").length === 2 && !document.getElementById("progress-box").hidden`)
		if got := evalAsync[string](t, ctx, `[...document.querySelectorAll("#progress li")].map(li => li.className + ":" + li.querySelector("input").checked + ":" + li.textContent.trim()).join("|")`); got != "done:true:read hello.txt|todo:false:<b>edit</b> it" {
			t.Errorf("checklist = %q", got)
		}
	})
	t.Run("a pending edit shows its diff and the decision buttons", func(t *testing.T) {
		postFromConsole(t, ctx, "toolu_pending1", "write_to_file", `{"path":"hello.txt","content":"hello from the console\n"}`)
		waitInPage(t, ctx, "the Approve button", `document.querySelector(`+strconv.Quote(card("toolu_pending1")+" .approval button.approve")+`) !== null`)
		if got := evalAsync[string](t, ctx, inCard("toolu_pending1", "pre.diff .add")); got != "+hello from the console" {
			t.Errorf("added line = %q, want it marked as added", got)
		}
		do(t, ctx, "click Reject", chromedp.Click(chromedp.CSS(card("toolu_pending1")+" .approval button.reject")))
		waitInPage(t, ctx, "tool.finished denied", inCard("toolu_pending1", ".state")+` === "denied"`)
	})
	t.Run("the token survives a reload of the tab", func(t *testing.T) {
		do(t, ctx, "reload", chromedp.Reload())
		waitInPage(t, ctx, "the tool list", `document.querySelector('#tools button[data-tool="read_file"]') !== null`)
		waitInPage(t, ctx, "the checklist from the session", `document.querySelectorAll("#progress li").length === 2`)
	})
}

// evilPage tries everything a page on a foreign origin would, even knowing
// the token and holding a valid ticket.
const evilPage = `(async () => {
  const out = {};
  const h = {Authorization: "Bearer " + {{TOKEN}}, "Content-Type": "application/json"};
  const write = JSON.stringify({type: "tool_use", id: "toolu_evil1", name: "write_to_file", input: {path: "pwned.txt", content: "x"}});
  try { await fetch({{BASE}} + "/v1/tool_use", {method: "POST", headers: h, body: write}); out.post = "sent"; } catch (e) { out.post = "blocked"; }
  try { await fetch({{BASE}} + "/v1/tool_use", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: write}); out.simplePost = "sent"; } catch (e) { out.simplePost = "blocked"; }
  try { out.read = await (await fetch({{BASE}} + "/healthz")).text(); } catch (e) { out.read = "blocked"; }
  try { out.readTools = await (await fetch({{BASE}} + "/v1/tools", {headers: {Authorization: h.Authorization}})).text(); } catch (e) { out.readTools = "blocked"; }
  out.stream = await new Promise((res) => {
    const es = new EventSource({{BASE}} + "/v1/sessions/default/events?ticket=" + {{TICKET}});
    es.onopen = () => { es.close(); res("opened"); };
    es.onerror = () => { es.close(); res("refused"); };
  });
  return out;
})()`

// idePage is a web IDE on an allowed origin: it reads responses, gets a
// ticket for EventSource, and also streams with fetch and the header.
const idePage = `(async () => {
  const out = {};
  const h = {Authorization: "Bearer " + {{TOKEN}}, "Content-Type": "application/json"};
  const tools = await fetch({{BASE}} + "/v1/tools", {headers: {Authorization: h.Authorization}});
  out.toolCount = (await tools.json()).tools.length;
  const sres = await fetch({{BASE}} + "/v1/sessions", {method: "POST", headers: h, body: JSON.stringify({mode: "act"})});
  out.location = sres.headers.get("Location") || "";
  const sid = (await sres.json()).id;
  const tk = await (await fetch({{BASE}} + "/v1/sse-tickets", {method: "POST", headers: h, body: JSON.stringify({session: sid})})).json();
  const url = {{BASE}} + "/v1/sessions/" + sid + "/events?ticket=" + encodeURIComponent(tk.ticket);
  const es = new EventSource(url);
  await new Promise((res, rej) => { es.onopen = res; es.onerror = () => rej(new Error("EventSource refused")); });
  const finished = new Promise((res) => es.addEventListener("tool.finished", (e) => res(JSON.parse(e.data))));
  const msg = {role: "assistant", content: [{type: "tool_use", id: "toolu_ide1", name: "read_file", input: {path: "hello.txt"}}]};
  await fetch({{BASE}} + "/v1/sessions/" + sid + "/messages", {method: "POST", headers: h, body: JSON.stringify(msg)});
  out.eventText = (await finished).result.content.map((c) => c.text).join("");
  es.close();
  const ctl = new AbortController();
  const r = await fetch({{BASE}} + "/v1/sessions/" + sid + "/events",
    {headers: {Authorization: h.Authorization, Accept: "text/event-stream", "Last-Event-ID": "0"}, signal: ctl.signal});
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("tool.finished")) { const {value, done} = await reader.read(); if (done) break; text += value; }
  ctl.abort();
  out.fetchStream = text;
  out.reuse = await new Promise((res) => {
    const again = new EventSource(url);
    again.onopen = () => { again.close(); res("opened"); };
    again.onerror = () => { again.close(); res("refused"); };
  });
  return out;
})()`

func TestBrowserCrossOrigin(t *testing.T) {
	env := newWebEnv(t, func(c *Config) { c.AllowedOrigins = []string{"http://ide.test:*"} }, map[string]string{"hello.txt": helloFile + "\n"})
	pages := pageServer(t)
	pagePort := pages.Listener.Addr().String()[strings.LastIndex(pages.Listener.Addr().String(), ":")+1:]
	ctx := newBrowser(t, 45*time.Second)

	t.Run("a page on another origin gets nothing", func(t *testing.T) {
		ticket := mintTicket(t, env, "default")
		do(t, ctx, "open the foreign page", chromedp.Navigate("http://evil.test:"+pagePort+"/"))
		got := evalAsync[map[string]string](t, ctx, js(evilPage, map[string]string{"BASE": env.URL, "TOKEN": testToken, "TICKET": ticket}))
		want := map[string]string{"post": "blocked", "simplePost": "sent", "read": "blocked", "readTools": "blocked", "stream": "refused"}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s = %q, want %q", k, got[k], w)
			}
		}
		if _, err := os.Stat(filepath.Join(env.Dir, "pwned.txt")); err == nil {
			t.Error("the foreign page wrote pwned.txt")
		}
		if !strings.Contains(env.logs.String(), `"path":"/v1/tool_use","route":"unmatched","status":403`) {
			t.Errorf("no 403 logged for the no-cors POST; logs:\n%s", env.logs.String())
		}
		// The refusal came before the ticket was looked at: a foreign page
		// cannot even burn a ticket.
		if got := openEvents(t, env, "default", ticket); got != 200 {
			t.Errorf("the ticket after the foreign attempt: status = %d, want 200", got)
		}
	})
	t.Run("a page on an allowed origin works, with a ticket for EventSource", func(t *testing.T) {
		do(t, ctx, "open the IDE page", chromedp.Navigate("http://ide.test:"+pagePort+"/"))
		got := evalAsync[map[string]any](t, ctx, js(idePage, map[string]string{"BASE": env.URL, "TOKEN": testToken}))
		if n, _ := got["toolCount"].(float64); n < 3 {
			t.Errorf("toolCount = %v, want the default tools", got["toolCount"])
		}
		if loc, _ := got["location"].(string); !strings.HasPrefix(loc, "/v1/sessions/") {
			t.Errorf("Location = %q, want it readable", loc)
		}
		if text, _ := got["eventText"].(string); !strings.Contains(text, helloFile) {
			t.Errorf("tool.finished over EventSource = %q, want the file", text)
		}
		if text, _ := got["fetchStream"].(string); !strings.Contains(text, helloFile) {
			t.Errorf("fetch stream = %q, want the file", text)
		}
		// Within its lifetime the ticket admits its session's stream again
		// (an EventSource reconnecting; browser_resume_test.go).
		if got["reuse"] != "opened" {
			t.Errorf("reusing the ticket: %v, want opened", got["reuse"])
		}
	})
}

func TestBrowserDNSRebinding(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	ctx := newBrowser(t, 30*time.Second)
	rebound := "http://rebind.example:" + strconv.Itoa(env.Port)

	do(t, ctx, "open the rebound name", chromedp.Navigate(rebound+"/"))
	if body := evalAsync[string](t, ctx, `document.body.textContent`); !strings.Contains(body, "forbidden_host") {
		t.Errorf("page = %q, want forbidden_host", body)
	}
	ticket := mintTicket(t, env, "default")
	got := evalAsync[map[string]any](t, ctx, js(`(async () => ({
		tools: (await fetch("/v1/tools", {headers: {Authorization: "Bearer " + {{TOKEN}}}})).status,
		post: (await fetch("/v1/sessions", {method: "POST", headers: {Authorization: "Bearer " + {{TOKEN}}, "Content-Type": "application/json"}, body: "{}"})).status,
		stream: await new Promise((res) => {
			const es = new EventSource("/v1/sessions/default/events?ticket=" + {{TICKET}});
			es.onopen = () => { es.close(); res("opened"); };
			es.onerror = () => { es.close(); res("refused"); };
		}),
	}))()`, map[string]string{"TOKEN": testToken, "TICKET": ticket}))
	for k, want := range map[string]any{"tools": float64(403), "post": float64(403), "stream": "refused"} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
}

// onePixelPNG is a 1x1 PNG.
func onePixelPNG(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
