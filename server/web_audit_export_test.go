package server

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/toolgate/toolgate/api"
)

// downloads are the files the browser downloaded into dir, each named by
// its download's id (allowAndName), announced when complete or cancelled.
type downloads struct {
	dir   string
	mu    sync.Mutex
	names map[string]string // download id -> the name the page suggested
	ended chan string       // "id state"
}

// watchDownloads lets the browser download into a new directory and
// follows its downloads.
func watchDownloads(t *testing.T, ctx context.Context) *downloads {
	t.Helper()
	d := &downloads{dir: t.TempDir(), names: map[string]string{}, ended: make(chan string, 16)}
	events := true
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: d.dir, EventsEnabled: &events}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.ListenBrowser(ctx, func(ev any) {
		switch e := ev.(type) {
		case *browser.EventDownloadWillBegin:
			d.mu.Lock()
			d.names[e.GUID] = e.SuggestedFilename
			d.mu.Unlock()
		case *browser.EventDownloadProgress:
			if e.State == browser.DownloadProgressStateCompleted || e.State == browser.DownloadProgressStateCanceled {
				d.ended <- e.GUID + " " + string(e.State)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return d
}

// download clicks a button and waits for the download it starts to end;
// it returns the name the page gave the file and its content.
func (d *downloads) download(t *testing.T, ctx context.Context, button string) (string, []byte) {
	t.Helper()
	do(t, ctx, "click "+button, chromedp.Click(chromedp.ID(button)))
	wait, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	select {
	case <-wait.Done():
		t.Fatalf("no download ended; the audit view says %q", evalAsync[string](t, ctx, `document.getElementById("audit-export-note").textContent`))
		return "", nil
	case got := <-d.ended:
		id, state, _ := strings.Cut(got, " ")
		if state != string(browser.DownloadProgressStateCompleted) {
			t.Fatalf("download %s: %s", id, state)
		}
		body, err := os.ReadFile(filepath.Join(d.dir, id))
		if err != nil {
			t.Fatal(err)
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.names[id], body
	}
}

// TestBrowserConsoleAuditExport: calls made while the console is open
// show in the audit view without a click, and its Export buttons download
// exactly those calls as JSON lines and as CSV, filters applied.
func TestBrowserConsoleAuditExport(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "a\n"})
	ctx := newBrowser(t, 60*time.Second)
	dl := watchDownloads(t, ctx)
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
		name, body := dl.download(t, ctx, "audit-export-jsonl")
		if name != "toolgate-audit.jsonl" {
			t.Errorf("file name = %q, want toolgate-audit.jsonl", name)
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
		name, body := dl.download(t, ctx, "audit-export-csv")
		recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
		if err != nil || name != "toolgate-audit.csv" || len(recs) != 4 {
			t.Fatalf("%s: %v, %d records, want toolgate-audit.csv with a header and 3 calls", name, err, len(recs))
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
		_, body := dl.download(t, ctx, "audit-export-jsonl")
		var r api.AuditRecord
		if lines := strings.Split(strings.TrimSpace(string(body)), "\n"); len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &r) != nil || r.ToolUseID != ids[1] {
			t.Errorf("failed calls exported = %q, want only %s", body, ids[1])
		}
	})
}
