package handlers

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/netguard"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/testproc"
)

// requireChromium skips without Debian's chromium, except under CI, where
// test.sh installs it and a missing browser is a failure.
func requireChromium(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("chromium"); err == nil {
		return
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found (apt-get install -y chromium)")
	}
	t.Skip("chromium not found; apt-get install -y chromium")
}

// testPage is the local page the browser tests drive: a red button that
// turns the page green, an input whose value goes to the console, and a
// link to a page the address rules refuse.
const testPage = `<!doctype html><html><head><style>
body{margin:0;background:#ff0000}
#b{position:absolute;left:0;top:0;width:300px;height:100px}
#in{position:absolute;left:0;top:200px;width:600px;height:80px;font-size:60px;border:0;outline:0;background:#fff;color:#000}
#go{position:absolute;left:0;top:400px;font-size:40px}
</style></head><body>
<button id="b" onclick="document.body.style.background='#00ff00'; console.log('clicked')">press</button>
<input id="in" autofocus oninput="console.log('value=' + this.value)">
<a id="go" href="BLOCKED">elsewhere</a>
<script>console.log("page loaded"); console.warn("careful")</script>
</body></html>`

// browserFixture serves testPage and returns settings that allow exactly
// its address, and the URL of a page on a port they refuse.
func browserFixture(t *testing.T) (browserSettings, string, string) {
	t.Helper()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secret admin page")) }))
	t.Cleanup(other.Close)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(strings.Replace(testPage, "BLOCKED", other.URL+"/admin", 1)))
	}))
	t.Cleanup(page.Close)
	s := browserSettings{width: 900, height: 600, idle: time.Hour, action: 30 * time.Second,
		guard: netguard.Guard{AllowAddresses: []netip.AddrPort{netip.MustParseAddrPort(page.Listener.Addr().String())}}}
	return s, page.URL + "/", other.URL + "/admin"
}

type browserRun struct {
	bs   *browsers
	call *tool.Call
	done chan struct{} // closing it ends the session
}

func newBrowserRun(t *testing.T, s browserSettings) *browserRun {
	t.Helper()
	r := &browserRun{bs: newBrowsers(s), done: make(chan struct{})}
	r.call = &tool.Call{ToolUseID: "toolu_b", SessionID: "sess-1", SessionDone: r.done}
	t.Cleanup(func() { r.bs.closeSession("sess-1") })
	return r
}

// act runs one action and returns the result's text and screenshot.
func (r *browserRun) act(t *testing.T, in BrowserActionInput) (string, image.Image) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := r.bs.run(ctx, r.call, &in)
	if err != nil {
		t.Fatalf("%s: %v", in.Action, err)
	}
	var text string
	var img image.Image
	for _, c := range res.Content {
		switch c.Type {
		case api.TypeText:
			text += c.Text
		case api.TypeImage:
			raw, err := base64.StdEncoding.DecodeString(c.Source.Data)
			if err != nil {
				t.Fatal(err)
			}
			if img, err = png.Decode(bytes.NewReader(raw)); err != nil {
				t.Fatalf("screenshot: %v", err)
			}
		}
	}
	return text, img
}

// pixel is the colour at x,y as 8-bit RGB.
func pixel(img image.Image, x, y int) [3]uint8 {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
}

// darkPixels counts near-black pixels in a rectangle: typed text.
func darkPixels(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if p := pixel(img, x, y); p[0] < 80 && p[1] < 80 && p[2] < 80 {
				n++
			}
		}
	}
	return n
}

// logsOf is the console section of a result text.
func logsOf(text string) string {
	_, rest, _ := strings.Cut(text, "Console logs:\n")
	logs, _, _ := strings.Cut(rest, "\n\n(REMEMBER:")
	return logs
}

// TestBrowserAction drives real headless chromium through Cline's actions
// (BrowserToolHandler.ts, BrowserSession.ts): each answer is a 900x600
// screenshot plus the console messages since the previous action.
func TestBrowserAction(t *testing.T) {
	requireChromium(t)
	s, pageURL, _ := browserFixture(t)
	r := newBrowserRun(t, s)

	text, img := r.act(t, BrowserActionInput{Action: "launch", URL: pageURL})
	if got := img.Bounds().Size(); got != image.Pt(900, 600) {
		t.Errorf("screenshot size %v, want 900x600", got)
	}
	if logs := logsOf(text); !strings.Contains(logs, "page loaded") || !strings.Contains(logs, "[warning] careful") {
		t.Errorf("launch logs %q, want the page's console.log and console.warn", logs)
	}
	// Cline's text ends with its reminder (BrowserToolHandler.execute);
	// toolgate's address comes after it, in a block of its own.
	if !strings.HasPrefix(text, browserDoneText) || !strings.Contains(text, browserReminder+"Current URL: "+pageURL) {
		t.Errorf("result text:\n%s", text)
	}
	if p := pixel(img, 800, 550); p != [3]uint8{255, 0, 0} {
		t.Fatalf("before the click the page is %v, want red", p)
	}
	inputBox := image.Rect(0, 200, 600, 280)
	if n := darkPixels(img, inputBox); n != 0 {
		t.Fatalf("the empty input has %d dark pixels", n)
	}

	t.Run("click changes the page", func(t *testing.T) {
		text, img := r.act(t, BrowserActionInput{Action: "click", Coordinate: "150,50"})
		if p := pixel(img, 800, 550); p != [3]uint8{0, 255, 0} {
			t.Errorf("after the click the page is %v, want green", p)
		}
		if logs := logsOf(text); logs != "clicked" {
			t.Errorf("click logs %q, want only the new message", logs)
		}
	})
	t.Run("typed text shows in the next screenshot", func(t *testing.T) {
		r.act(t, BrowserActionInput{Action: "click", Coordinate: "300,240"}) // focus the input
		text, img := r.act(t, BrowserActionInput{Action: "type", Text: "hello"})
		if n := darkPixels(img, inputBox); n < 100 {
			t.Errorf("the input shows %d dark pixels after typing, want the text drawn", n)
		}
		if logs := logsOf(text); !strings.HasSuffix(logs, "value=hello") {
			t.Errorf("type logs %q, want the input's value", logs)
		}
	})
	t.Run("scroll and no new logs", func(t *testing.T) {
		text, _ := r.act(t, BrowserActionInput{Action: "scroll_down"})
		if logs := logsOf(text); logs != "(No new logs)" {
			t.Errorf("scroll logs %q, want (No new logs)", logs)
		}
	})
	t.Run("close leaves no chromium process", func(t *testing.T) {
		sb, err := r.bs.get("sess-1")
		if err != nil {
			t.Fatal(err)
		}
		dir := sb.b.dataDir
		if len(testproc.Matching(dir)) == 0 {
			t.Fatal("no process runs with the browser's profile; the check would prove nothing")
		}
		text, img := r.act(t, BrowserActionInput{Action: "close"})
		if text != browserClosedText || img != nil {
			t.Errorf("close answered %q (image %v)", text, img != nil)
		}
		waitNoProcesses(t, dir)
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("profile %s left behind", dir)
		}
		if _, err := r.bs.run(context.Background(), r.call, &BrowserActionInput{Action: "scroll_up"}); toolCode(t, err) != api.ToolCodeBrowserFailed {
			t.Errorf("action after close: %v, want browser_failed", err)
		}
	})
}

// TestBrowserActionURLRules: launch and every navigation after it follow
// web_fetch's address rules.
func TestBrowserActionURLRules(t *testing.T) {
	requireChromium(t)
	s, pageURL, blocked := browserFixture(t)
	r := newBrowserRun(t, s)
	ctx := context.Background()
	if _, err := r.bs.run(ctx, r.call, &BrowserActionInput{Action: "launch", URL: blocked}); toolCode(t, err) != api.ToolCodeURLRefused || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("launch at a refused address: %v, want url_refused", err)
	}
	if _, err := r.bs.get("sess-1"); err == nil {
		t.Fatal("a refused launch left a browser open")
	}
	r.act(t, BrowserActionInput{Action: "launch", URL: pageURL})
	text, _ := r.act(t, BrowserActionInput{Action: "click", Coordinate: "40,420"}) // the link
	if logs := logsOf(text); !strings.Contains(logs, "[Blocked]") || !strings.Contains(logs, "loopback") {
		t.Errorf("following the link: logs %q, want the refusal", logs)
	}
	if strings.Contains(text, "secret admin page") {
		t.Error("the refused page was loaded")
	}
}

// TestBrowserClosedWithSession: a session's end and an idle browser both
// close it, processes and all.
func TestBrowserClosedWithSession(t *testing.T) {
	requireChromium(t)
	s, pageURL, _ := browserFixture(t)
	for _, how := range []string{"session end", "idle timeout"} {
		t.Run(how, func(t *testing.T) {
			r := newBrowserRun(t, s)
			r.act(t, BrowserActionInput{Action: "launch", URL: pageURL})
			r.bs.mu.Lock()
			sb := r.bs.bySession["sess-1"]
			r.bs.mu.Unlock()
			if sb == nil {
				t.Fatal("no browser after launch")
			}
			dir := sb.b.dataDir
			if how == "session end" {
				close(r.done)
			} else {
				// The launch armed the idle timer with the configured hour;
				// the same timer fires now instead.
				sb.idle.Reset(time.Millisecond)
			}
			waitNoProcesses(t, dir)
			if _, err := r.bs.get("sess-1"); err == nil {
				t.Error("the session still has a browser")
			}
		})
	}
}

// TestBrowserWithoutChromium: a missing browser is a clear error naming
// what to install, and the tool keeps working for the next call.
func TestBrowserWithoutChromium(t *testing.T) {
	s := browserSettings{chromium: filepath.Join(t.TempDir(), "no-chromium"), width: 900, height: 600, idle: time.Hour, action: time.Minute,
		guard: netguard.Guard{AllowPrivate: true}}
	r := newBrowserRun(t, s)
	for range 2 {
		_, err := r.bs.run(context.Background(), r.call, &BrowserActionInput{Action: "launch", URL: "http://127.0.0.1:1/"})
		if toolCode(t, err) != api.ToolCodeUnavailable || !strings.Contains(err.Error(), "apt-get install chromium") {
			t.Fatalf("got %v, want unavailable naming the package", err)
		}
	}
}

// waitNoProcesses waits, up to a deadline, until no process mentions dir.
func waitNoProcesses(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		left := testproc.Matching(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("chromium processes still running: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBrowserInSandbox: with the command sandbox in force, chromium runs
// inside it (a PID namespace of its own under bubblewrap) and still works:
// the page loads through the proxy and a click changes it.
func TestBrowserInSandbox(t *testing.T) {
	requireChromium(t)
	sbx := sandbox.New(sandbox.Config{})
	if sbx.Mode() != sandbox.InForceBwrap {
		if os.Getenv("CI") != "" {
			t.Fatalf("sandbox mode %s, want bwrap (test.sh installs bubblewrap)", sbx.Mode())
		}
		t.Skipf("sandbox mode %s; this test needs bubblewrap", sbx.Mode())
	}
	s, pageURL, _ := browserFixture(t)
	r := newBrowserRun(t, s)
	ws := t.TempDir()
	r.call.Attach(tool.Runtime{Host: tool.HostFuncs{OnConfine: func(string) (*sandbox.Sandbox, sandbox.Run, error) {
		return sbx, sandbox.Run{Workspace: ws, Dir: ws}, nil
	}}})
	text, img := r.act(t, BrowserActionInput{Action: "launch", URL: pageURL})
	if logs := logsOf(text); !strings.Contains(logs, "page loaded") {
		t.Fatalf("launch in the sandbox: logs %q\n%s", logs, text)
	}
	if p := pixel(img, 800, 550); p != [3]uint8{255, 0, 0} {
		t.Errorf("page %v, want red", p)
	}
	if _, img := r.act(t, BrowserActionInput{Action: "click", Coordinate: "150,50"}); pixel(img, 800, 550) != [3]uint8{0, 255, 0} {
		t.Errorf("after the click the page is %v, want green", pixel(img, 800, 550))
	}
	sb, err := r.bs.get("sess-1")
	if err != nil {
		t.Fatal(err)
	}
	dir := sb.b.dataDir
	own, _ := os.Readlink("/proc/self/ns/pid")
	inside := 0
	for _, pid := range testproc.Matching(dir) {
		if ns, err := os.Readlink("/proc/" + pid + "/ns/pid"); err == nil && ns != own {
			inside++
		}
	}
	if inside == 0 {
		t.Error("no chromium process runs in a PID namespace of its own")
	}
	r.act(t, BrowserActionInput{Action: "close"})
	waitNoProcesses(t, dir)
}

// TestBrowserNavigationDenyRules: a page the browser reaches by itself is
// held to the call's deny rules (the pipeline's DeniedURL), through the
// proxy.
func TestBrowserNavigationDenyRules(t *testing.T) {
	requireChromium(t)
	s, _, blocked := browserFixture(t)
	s.guard = netguard.Guard{AllowPrivate: true}
	denied := strings.Replace(blocked, "127.0.0.1", "localhost", 1)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(strings.Replace(testPage, "BLOCKED", denied, 1)))
	}))
	t.Cleanup(page.Close)
	r := newBrowserRun(t, s)
	r.call.Attach(tool.Runtime{Host: tool.HostFuncs{OnDeniedURL: func(u string) error {
		if strings.Contains(u, "//localhost") {
			return errors.New(`localhost is denied by deny rule "browser_action(domain:localhost)"`)
		}
		return nil
	}}})
	r.act(t, BrowserActionInput{Action: "launch", URL: page.URL + "/"})
	text, _ := r.act(t, BrowserActionInput{Action: "click", Coordinate: "40,420"})
	if logs := logsOf(text); !strings.Contains(logs, "[Blocked]") || !strings.Contains(logs, "deny rule") {
		t.Errorf("following the link: logs %q, want the deny rule's refusal", logs)
	}
}
