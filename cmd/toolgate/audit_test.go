package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/store"
)

// TestAuditExport makes calls on a toolgate with the SQLite store, then
// exports its audit log with "toolgate audit export" while it still runs:
// JSON lines, newest first, filtered.
func TestAuditExport(t *testing.T) {
	dir := t.TempDir()
	args := sqliteArgs(t, `, "policy": {"allow_all": true}`)
	inst := start(t, dir, args...)
	uses := []map[string]any{
		{"id": "e1", "name": "write_to_file", "input": map[string]any{"path": "a.txt", "content": "a\n"}},
		{"id": "e2", "name": "read_file", "input": map[string]any{"path": "a.txt"}},
		{"id": "e3", "name": "read_file", "input": map[string]any{"path": "missing.txt"}},
	}
	for _, u := range uses {
		var resp api.MessageResponse
		if code := inst.postJSON(t, "/v1/sessions/default/messages", message(u), &resp); code != 200 {
			t.Fatalf("post %s: %d", u["id"], code)
		}
	}
	export := func(extra ...string) []api.AuditRecord {
		t.Helper()
		var out, errOut bytes.Buffer
		argv := append([]string{"toolgate", "audit", "export", "--since", "1h", "--format", "jsonl", "--workspace", dir, args[0], args[1]}, extra...)
		if err := run(context.Background(), argv, func(string) string { return "" }, nil, &out, &errOut); err != nil {
			t.Fatalf("export: %v\n%s", err, errOut.String())
		}
		var recs []api.AuditRecord
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			var r api.AuditRecord
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			recs = append(recs, r)
		}
		return recs
	}
	ids := func(recs []api.AuditRecord) string {
		var s []string
		for _, r := range recs {
			s = append(s, r.ToolUseID+":"+string(r.Status))
		}
		return strings.Join(s, " ")
	}
	// Reads are recorded off the request path: the last, durable write
	// aside, wait until they are visible.
	inst.waitForAudit(t, 3)
	if got := ids(export()); got != "e3:failed e2:succeeded e1:succeeded" {
		t.Errorf("export = %s", got)
	}
	if got := ids(export("--tool", "read_file", "--status", "failed")); got != "e3:failed" {
		t.Errorf("filtered export = %s", got)
	}
	if recs := export("--tool", "write_to_file"); len(recs) != 1 || recs[0].Decision != "allow" || !strings.HasPrefix(recs[0].DecidedBy, "default:") || recs[0].Result == nil {
		t.Errorf("write record = %+v", recs)
	}
	t.Run("csv", func(t *testing.T) {
		var out, errOut bytes.Buffer
		argv := []string{"toolgate", "audit", "export", "--format", "csv", "--tool", "read_file", "--workspace", dir, args[0], args[1]}
		if err := run(context.Background(), argv, func(string) string { return "" }, nil, &out, &errOut); err != nil {
			t.Fatalf("export: %v\n%s", err, errOut.String())
		}
		rows, err := csv.NewReader(&out).ReadAll()
		if err != nil || len(rows) != 3 || rows[0][3] != "tool_use_id" || rows[1][3] != "e3" || rows[2][3] != "e2" {
			t.Errorf("csv export = %q, %v; want a header, then e3 and e2", rows, err)
		}
	})
	for _, bad := range [][]string{{"--format", "xml"}, {"--since", "last tuesday"}} {
		argv := append([]string{"toolgate", "audit", "export", args[0], args[1]}, bad...)
		if err := run(context.Background(), argv, func(string) string { return "" }, nil, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
			t.Errorf("export %v: no error", bad)
		}
	}
}

// waitForAudit polls GET /v1/audit until it lists n calls.
func (in *instance) waitForAudit(t *testing.T, n int) {
	t.Helper()
	for range 500 {
		var page api.AuditResponse
		if in.getJSON(t, "/v1/audit", &page) == 200 && len(page.Calls) >= n {
			return
		}
		waitABit()
	}
	t.Fatalf("the audit log never listed %d calls", n)
}

// TestStatePath checks where the database lives by default: under
// XDG_STATE_HOME (else ~/.local/state), one directory per workspace.
func TestStatePath(t *testing.T) {
	env := map[string]string{"XDG_STATE_HOME": "/state", "HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	a, _ := statePath(storeConfig{}, "/src/a", getenv)
	b, _ := statePath(storeConfig{}, "/src/b", getenv)
	if filepath.Dir(filepath.Dir(a)) != "/state/toolgate" || filepath.Base(a) != "state.db" || a == b {
		t.Errorf("paths %s, %s: want /state/toolgate/<hash>/state.db, one per workspace", a, b)
	}
	delete(env, "XDG_STATE_HOME")
	if c, _ := statePath(storeConfig{}, "/src/a", getenv); !strings.HasPrefix(c, "/home/u/.local/state/toolgate/") {
		t.Errorf("without XDG_STATE_HOME: %s", c)
	}
	if d, _ := statePath(storeConfig{Path: "/db/x.db"}, "/src/a", getenv); d != "/db/x.db" {
		t.Errorf("store.path: %s", d)
	}
	delete(env, "HOME")
	if _, err := statePath(storeConfig{}, "/src/a", getenv); err == nil {
		t.Error("no HOME and no XDG_STATE_HOME: no error")
	}
}

// waitABit is a poll's pause.
func waitABit() { <-time.After(10 * time.Millisecond) }

// TestRetentionPrunesOldCalls starts toolgate on a store holding a call
// older than store.retention and one inside it: the old one leaves the
// audit log, the other stays.
func TestRetentionPrunesOldCalls(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "state.db")
	cfg := filepath.Join(dir, "toolgate.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"store": {"path": %q, "retention": "30d"}}`, path)), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--config", cfg, "--store", "sqlite"}
	st, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for id, age := range map[string]time.Duration{"old": 31 * 24 * time.Hour, "recent": 29 * 24 * time.Hour} {
		if err := st.Apply(store.Synced, store.PutCall{Call: store.Call{Seq: st.NextSeq(), SessionID: "default", ToolUseID: id, Tool: "read_file",
			State: "done", Status: "succeeded", StartedAt: now.Add(-age)}}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	inst := start(t, t.TempDir(), args...)
	for range 500 {
		var page api.AuditResponse
		inst.getJSON(t, "/v1/audit", &page)
		if len(page.Calls) == 1 {
			if page.Calls[0].ToolUseID != "recent" {
				t.Fatalf("kept %s, want recent", page.Calls[0].ToolUseID)
			}
			return
		}
		waitABit()
	}
	t.Fatal("the call older than the retention was never pruned")
}
