package server

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// updateScreenshot rewrites docs/console.png from the charts test:
// go test ./server -run TestBrowserConsoleCharts -update-screenshot
var updateScreenshot = flag.Bool("update-screenshot", false, "write the console screenshot to docs/console.png")

// chromiumPath finds Debian's chromium. Without it the browser tests skip,
// unless CI is set, where a missing browser is a failure.
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

// newBrowser starts a headless chromium with a fresh profile and returns a
// tab context bounded by timeout. rebind.example resolves to 127.0.0.1, as
// a DNS-rebinding attacker's name would, and *.test names stand for other
// sites.
func newBrowser(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	exe := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("host-resolver-rules", "MAP rebind.example 127.0.0.1, MAP *.test 127.0.0.1"),
		chromedp.WindowSize(1440, 960),
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
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

// do runs browser steps and fails the test on error.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// evalAsync evaluates a JavaScript expression in the page, awaiting the
// promise it returns, and decodes its value into T.
func evalAsync[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate: %v\n%s", err, js)
	}
	return v
}

// waitInPage polls a JavaScript predicate in the page until it holds.
func waitInPage(t *testing.T, ctx context.Context, what, predicate string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](predicate, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("result")?.textContent + "\n" + document.body.innerText.slice(0, 2000)`))
		t.Fatalf("waiting for %s: %v\npage:\n%s", what, err, state)
	}
}

// pageServer serves an empty page: the stand-in for another site (an
// attacker's, or a web IDE's) whose scripts the tests run.
func pageServer(t *testing.T) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><title>another site</title><p>another site</p>"))
	}))
	t.Cleanup(hs.Close)
	return hs
}
