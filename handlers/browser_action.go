package handlers

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// BrowserActionInput is the input of browser_action, with the parameters
// of Cline's BrowserToolHandler.ts.
type BrowserActionInput struct {
	Action     string `json:"action" validate:"required,oneof=launch click type scroll_down scroll_up close" jsonschema:"launch (needs url), click (needs coordinate), type (needs text), scroll_down, scroll_up or close"`
	URL        string `json:"url,omitempty" jsonschema:"for launch: the http or https page to open"`
	Coordinate string `json:"coordinate,omitempty" jsonschema:"for click: x,y in pixels of the screenshot, e.g. 450,300"`
	Text       string `json:"text,omitempty" jsonschema:"for type: the text to type into the focused element"`
}

// Cline's result texts (BrowserToolHandler.ts).
const (
	browserDoneText = "The browser action has been executed. The console logs and screenshot have been captured for your analysis."
	browserReminder = "(REMEMBER: if you need to proceed to using non-`browser_action` tools or launch a new browser, you MUST first close this browser. " +
		"For example, if after analyzing the logs and screenshot you need to edit a file, you must first close the browser before you can use the write_to_file tool.)"
	browserClosedText = "The browser has been closed. You may now proceed to using other tools."
)

// newBrowserAction serves browser_action: one headless chromium per
// session, driven through the DevTools protocol.
func newBrowserAction(name string, env tool.Env) *tool.Tool {
	s := newBrowserSettings(env)
	bs := newBrowsers(s)
	return tool.NewTool(tool.Spec[BrowserActionInput]{
		Name: name,
		Description: fmt.Sprintf("Drive a headless Chromium browser: launch it at a URL, click at x,y, type text, scroll down or up, close it. "+
			"Each action answers with a %dx%d screenshot and the console messages since the last action. "+
			"Start with launch and end with close; while the browser is open use only browser_action. "+
			"Addresses on this machine or its private network are refused unless the server's policy allows them.", s.width, s.height),
		Run: func(ctx context.Context, call *tool.Call, in *BrowserActionInput) (tool.Result, error) {
			return bs.run(ctx, call, in)
		},
		URL: func(in *BrowserActionInput) string {
			if in.Action == "launch" {
				return in.URL
			}
			return ""
		},
	})
}

// run does one action in the session's browser.
func (bs *browsers) run(ctx context.Context, call *tool.Call, in *BrowserActionInput) (tool.Result, error) {
	switch in.Action {
	case "close":
		bs.closeSession(call.SessionID)
		return tool.TextResult(browserClosedText), nil
	case "launch":
		return bs.launchAt(ctx, call, in.URL)
	}
	var act func(ctx context.Context, b *browser) error
	switch in.Action {
	case "click":
		x, y, err := parseCoordinate(in.Coordinate)
		if err != nil {
			return tool.Result{}, err
		}
		act = func(ctx context.Context, b *browser) error { return b.click(ctx, x, y) }
	case "type":
		if in.Text == "" {
			return tool.Result{}, tool.Errorf(api.ToolCodeInvalid, "Missing value for required parameter 'text' of browser_action type.")
		}
		act = func(ctx context.Context, b *browser) error { return chromedp.Do(ctx, chromedp.KeyEvent(in.Text)) }
	case "scroll_down", "scroll_up":
		dy := bs.settings.height
		if in.Action == "scroll_up" {
			dy = -dy
		}
		act = func(ctx context.Context, b *browser) error {
			_, err := chromedp.Run(ctx, chromedp.Evaluate[any](fmt.Sprintf("window.scrollBy({top: %d, behavior: 'auto'})", dy)))
			return err
		}
	}
	sb, err := bs.get(call.SessionID)
	if err != nil {
		return tool.Result{}, err
	}
	return bs.do(ctx, sb, act)
}

// launchAt checks the URL, starts the session's browser and opens the page.
func (bs *browsers) launchAt(ctx context.Context, call *tool.Call, raw string) (tool.Result, error) {
	if raw == "" {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalid, "Missing value for required parameter 'url' of browser_action launch.")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalidURL, "%q is not a URL: %v", raw, err)
	}
	guard := bs.settings.guard
	if guard.CheckURL(u) != nil && sessionLocal(call, u) {
		guard.AllowPrivate = true // the session's own dev server, through its network
	}
	if err := guard.CheckURL(u); err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeURLRefused, "Refused to open %s: %v", u.Redacted(), err)
	}
	sb, err := bs.launch(call)
	if err != nil {
		return tool.Result{}, err
	}
	res, err := bs.do(ctx, sb, func(ctx context.Context, b *browser) error {
		return chromedp.Do(ctx, chromedp.Navigate(u.String()))
	})
	if err != nil {
		bs.closeSession(call.SessionID)
	}
	return res, err
}

// do runs an action, waits for the page and its console to settle, and
// answers as Cline does: the logs since the last action and a screenshot.
// An action that fails is reported in the logs, as Cline's doAction does;
// only a browser that cannot take a screenshot fails the call.
func (bs *browsers) do(ctx context.Context, sb *sessionBrowser, act func(context.Context, *browser) error) (tool.Result, error) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	b := sb.b
	if b.tab.Err() != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeBrowserFailed, "The browser is no longer running (%v): launch it again.", errClosed)
	}
	actx, cancel := context.WithTimeout(b.tab, bs.settings.action)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel) // the call's cancel ends the action
	defer stop()
	if err := act(actx, b); err != nil {
		b.addLog("[Error] " + actionError(err, bs.settings.action))
	}
	b.waitLoaded(actx)
	b.settle(ctx, 300*time.Millisecond, 3*time.Second)
	shot, err := chromedp.Run(actx, chromedp.CaptureScreenshot())
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{}, tool.Errorf(api.ToolCodeBrowserFailed, "Failed to take screenshot: %v", err)
	}
	location, _ := chromedp.Run(actx, chromedp.Location())
	logs := strings.Join(b.takeLogs(), "\n")
	if logs == "" {
		logs = "(No new logs)"
	}
	// Cline's text and screenshot (formatResponse.toolResult), then the
	// page's address, which toolgate adds.
	text := fmt.Sprintf("%s\n\nConsole logs:\n%s\n\n%s", browserDoneText, logs, browserReminder)
	return tool.Result{Content: []api.Content{
		api.TextContent(text),
		{Type: api.TypeImage, Source: &api.ImageSource{Type: "base64", MediaType: "image/png", Data: base64.StdEncoding.EncodeToString(shot)}},
		api.TextContent("Current URL: " + location),
	}}, nil
}

// click clicks at x,y. A click that starts a navigation is followed by a
// wait for the new page in do.
func (b *browser) click(ctx context.Context, x, y float64) error {
	return chromedp.Do(ctx, chromedp.MouseClickXY(x, y))
}

// waitLoaded waits, within the action's time, until the document has
// finished loading.
func (b *browser) waitLoaded(ctx context.Context) {
	_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`document.readyState === "complete"`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(5*time.Second)))
}

// parseCoordinate reads Cline's "x,y".
func parseCoordinate(s string) (float64, float64, error) {
	xs, ys, ok := strings.Cut(strings.TrimSpace(s), ",")
	x, errX := strconv.ParseFloat(strings.TrimSpace(xs), 64)
	y, errY := strconv.ParseFloat(strings.TrimSpace(ys), 64)
	if !ok || errX != nil || errY != nil || x < 0 || y < 0 {
		return 0, 0, tool.Errorf(api.ToolCodeInvalid, "coordinate must be \"x,y\" in pixels (for example \"450,300\"), got %q.", s)
	}
	return x, y, nil
}

func actionError(err error, limit time.Duration) string {
	if strings.Contains(err.Error(), "deadline exceeded") {
		return fmt.Sprintf("the action did not finish within %s", limit)
	}
	return err.Error()
}

// sessionLocal reports whether u names localhost and the call's session
// has a network of its own, where the browser then finds it.
func sessionLocal(call *tool.Call, u *url.URL) bool {
	switch strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")) {
	case "localhost", "127.0.0.1", "::1":
	default:
		return false
	}
	_, confine, err := call.Confinement("")
	return err == nil && confine.Net != nil
}
