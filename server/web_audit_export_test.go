package server

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/toolgate/toolgate/api"
)

// download clicks a button and waits for the file it downloads into dir,
// which it empties first (a second file of the same name may replace the
// first), and returns the file's name and content.
func download(t *testing.T, ctx context.Context, dir, button string) (string, []byte) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	do(t, ctx, "click "+button, chromedp.Click(chromedp.ID(button)))
	return waitDownload(t, dir)
}

// waitDownload waits for a file to finish downloading into dir and
// returns its name and content.
func waitDownload(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	for {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".crdownload") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			return e.Name(), b
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no download came into %s", dir)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestBrowserConsoleAuditExport: calls made while the console is open
// show in the audit view without a click, and its Export buttons download
// exactly those calls as JSON lines and as CSV, filters applied.
func TestBrowserConsoleAuditExport(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "a\n"})
	ctx := newBrowser(t, 60*time.Second)
	downloads := t.TempDir()
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
		t.Fatal(err)
	}
	openConsole(t, ctx, env)
	rows := `document.querySelectorAll("#audit tbody tr[data-tool-use-id]")`
	waitInPage(t, ctx, "the empty audit view", `document.querySelector("#audit tbody td.muted")?.textContent === "no calls"`)

	ids := []string{"toolu_x1", "toolu_x2", "toolu_x3"}
	consolePost(t, env, "default", false, toolUse(ids[0], "read_file", map[string]any{"path": "a.txt"}),
		toolUse(ids[1], "read_file", map[string]any{"path": "missing.txt"}),
		toolUse(ids[2], "list_files", map[string]any{"path": "."}))
	newestFirst := []string{ids[2], ids[1], ids[0]}
	waitInPage(t, ctx, "the audit view to refresh by itself", rows+`.length === 3`)

	t.Run("JSON lines", func(t *testing.T) {
		name, body := download(t, ctx, downloads, "audit-export-jsonl")
		if !strings.HasSuffix(name, ".jsonl") {
			t.Errorf("file name = %q, want .jsonl", name)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
			var r api.AuditRecord
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			got = append(got, r.ToolUseID)
		}
		if !slices.Equal(got, newestFirst) {
			t.Errorf("exported ids = %v, want %v", got, newestFirst)
		}
	})
	t.Run("CSV", func(t *testing.T) {
		name, body := download(t, ctx, downloads, "audit-export-csv")
		recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
		if err != nil || !strings.HasSuffix(name, ".csv") || len(recs) != 4 {
			t.Fatalf("%s: %v, %d records, want a header and 3 calls", name, err, len(recs))
		}
		col := slices.Index(recs[0], "tool_use_id")
		var got []string
		for _, r := range recs[1:] {
			got = append(got, r[col])
		}
		if !slices.Equal(got, newestFirst) {
			t.Errorf("exported ids = %v, want %v", got, newestFirst)
		}
	})
	t.Run("the filters apply", func(t *testing.T) {
		do(t, ctx, "filter failed calls", chromedp.SendKeys(chromedp.ID("audit-status"), "failed"))
		_, body := download(t, ctx, downloads, "audit-export-jsonl")
		var r api.AuditRecord
		if lines := strings.Split(strings.TrimSpace(string(body)), "\n"); len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &r) != nil || r.ToolUseID != ids[1] {
			t.Errorf("failed calls exported = %q, want only %s", body, ids[1])
		}
	})
}
