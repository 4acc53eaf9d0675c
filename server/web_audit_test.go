package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserConsoleAudit opens the console's audit log after 27 reads
// (one of a missing file) and pages through it in headless Chromium:
// newest first, 25 a page, Older and Newer, and a status filter.
func TestBrowserConsoleAudit(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "a\n"})
	var blocks []any
	for i := range 27 {
		path := "a.txt"
		if i == 20 {
			path = "missing.txt"
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_a%02d", i), "name": "read_file", "input": map[string]any{"path": path}})
	}
	body, _ := json.Marshal(map[string]any{"role": "assistant", "content": blocks})
	req, _ := http.NewRequest("POST", env.URL+"/v1/sessions/default/messages", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("post the reads: %v %v", err, resp)
	}
	resp.Body.Close()

	ctx := newBrowser(t, 45*time.Second)
	openConsole(t, ctx, env)
	rows := `document.querySelectorAll("#audit tbody tr[data-tool-use-id]")`
	first := rows + `[0]?.dataset.toolUseId`
	waitInPage(t, ctx, "the first page", rows+`.length === 25`)
	if got := evalAsync[string](t, ctx, first); got != "toolu_a26" {
		t.Errorf("newest row = %q, want toolu_a26", got)
	}
	if got := evalAsync[string](t, ctx, rows+`[0].textContent`); !bytes.Contains([]byte(got), []byte("allow by default")) {
		t.Errorf("row %q does not say who allowed the call", got)
	}
	do(t, ctx, "click Older", chromedp.Click(chromedp.ID("audit-older")))
	waitInPage(t, ctx, "the second page", rows+`.length === 2 && `+first+` === "toolu_a01"`)
	do(t, ctx, "click Newer", chromedp.Click(chromedp.ID("audit-newer")))
	waitInPage(t, ctx, "the first page again", rows+`.length === 25 && `+first+` === "toolu_a26"`)
	do(t, ctx, "filter failed calls", chromedp.SendKeys(chromedp.ID("audit-status"), "failed"), chromedp.Click(chromedp.ID("audit-refresh")))
	waitInPage(t, ctx, "the failed read", rows+`.length === 1 && `+first+` === "toolu_a20"`)
}
