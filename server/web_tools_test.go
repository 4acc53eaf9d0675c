package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// newTools are the tools Cline has that toolgate added last, with a
// parameter each must show in its schema (apply_patch: ApplyPatchHandler.ts,
// web_fetch: WebFetchToolHandler.ts, browser_action: BrowserToolHandler.ts).
var newTools = map[string]string{"apply_patch": `"input"`, "web_fetch": `"url"`, "browser_action": `"coordinate"`}

// TestNewToolsListed: GET /v1/tools (which the console lists) and the /mcp
// facade both offer apply_patch, web_fetch and browser_action.
func TestNewToolsListed(t *testing.T) {
	ts, _ := newMCPTestServer(t)
	got := decodeBody[api.ToolsResponse](t, ts.do(t, "GET", "/v1/tools", nil), http.StatusOK)
	schemas := map[string]string{}
	for _, tl := range got.Tools {
		schemas[tl.Name] = string(tl.InputSchema)
	}
	cs, err := connectFacade(t, ts.URL+"/mcp", testToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	facade := map[string]bool{}
	for _, tl := range res.Tools {
		facade[tl.Name] = true
	}
	for name, param := range newTools {
		if !strings.Contains(schemas[name], param) {
			t.Errorf("GET /v1/tools: %s schema %q lacks %s", name, schemas[name], param)
		}
		if !facade[name] {
			t.Errorf("/mcp tools/list lacks %s", name)
		}
	}
}

// TestWebFetchHTTP: web_fetch asks by default, a domain rule allows it, and
// its latency is in toolgate_tool_call_duration_seconds like any tool's.
func TestWebFetchHTTP(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<h2>Hello</h2>")
	}))
	t.Cleanup(site.Close)
	cfg := coordinator.DefaultConfig()
	cfg.WebFetch.AllowAddresses = []netip.AddrPort{netip.MustParseAddrPort(site.Listener.Addr().String())}
	cfg.Permissions.Allow = []string{"web_fetch(domain:127.0.0.1)"}
	f := newFixture(t, fixtureOptions{config: cfg, server: Config{Token: testToken}})
	s := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	got := decodeBody[api.ToolUseResponse](t, s.do(t, "POST", "/v1/tool_use",
		toolUse("toolu_wf1", "web_fetch", map[string]any{"url": site.URL + "/", "prompt": "greeting"})), http.StatusOK)
	if got.Call.Status != api.StatusSucceeded || !strings.Contains(got.Result.Content[0].Text, "## Hello") {
		t.Fatalf("web_fetch: %+v %+v", got.Call, got.Result)
	}
	resp := s.do(t, "GET", "/metrics", nil)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `toolgate_tool_call_duration_seconds_count{dialect="cline",tool="web_fetch"} 1`) {
		t.Errorf("metrics lack web_fetch's call:\n%s", grepLines(string(body), "toolgate_tool_call_duration_seconds_count"))
	}
}

// TestBrowserActionHTTP: browser_action through the whole server: the
// launch answers with Cline's text, the page's console and a screenshot
// block; deleting the session closes its browser, processes and all.
func TestBrowserActionHTTP(t *testing.T) {
	chromiumPath(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><p>hi</p><script>console.log("hi from the page")</script>`)
	}))
	t.Cleanup(page.Close)
	cfg := coordinator.DefaultConfig()
	cfg.WebFetch.AllowAddresses = []netip.AddrPort{netip.MustParseAddrPort(page.Listener.Addr().String())}
	// An odd viewport marks this test's chromium among other tests' ones.
	cfg.Browser.ViewportWidth, cfg.Browser.ViewportHeight = 901, 601
	marker := "--window-size=901,601"
	f := newFixture(t, fixtureOptions{config: cfg, server: Config{Token: testToken}})
	s := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	sess := decodeBody[api.Session](t, s.do(t, "POST", "/v1/sessions", api.CreateSessionRequest{
		Permissions: &api.Permissions{Allow: []string{"browser_action"}}}), http.StatusCreated)
	resp := decodeBody[api.MessageResponse](t, s.do(t, "POST", "/v1/sessions/"+sess.ID+"/messages",
		assistant(toolUse("toolu_br1", "browser_action", map[string]any{"action": "launch", "url": page.URL + "/"}))), http.StatusOK)
	res := resp.Message.Content[0]
	if resp.Calls[0].Status != api.StatusSucceeded || len(res.Content) != 3 || res.Content[1].Type != api.TypeImage ||
		res.Content[1].Source.MediaType != "image/png" || !strings.Contains(res.Content[0].Text, "hi from the page") {
		t.Fatalf("launch: %+v %+v", resp.Calls[0], res.Content)
	}
	if len(pidsWith(t, marker)) == 0 {
		t.Fatal("no chromium process found for this test")
	}
	if r := s.do(t, "DELETE", "/v1/sessions/"+sess.ID, nil); r.StatusCode != http.StatusNoContent {
		t.Fatalf("delete session: %d", r.StatusCode)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(pidsWith(t, marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("chromium still running after the session ended: %v", pidsWith(t, marker))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pidsWith lists the processes whose command line holds s.
func pidsWith(t *testing.T, s string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), s) {
			out = append(out, e.Name())
		}
	}
	return out
}
