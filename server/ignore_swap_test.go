package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestIgnoreCheckedOnOpenedFile swaps a symlink in between the policy's
// check of a path and the handler's open, while the call waits for its
// approval: the ignore rules must judge the file actually opened or
// written, so the ignored file stays unread and unchanged. The walking
// tools (list_files, search_files, list_code_definition_names) judge the
// directory they opened, not the name they were given.
func TestIgnoreCheckedOnOpenedFile(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.Permissions = api.Permissions{Ask: []string{"read_file", "write_to_file", "replace_in_file",
		"list_files", "search_files", "list_code_definition_names"}}
	f := newFixture(t, fixtureOptions{config: cfg, server: Config{Token: testToken}, files: map[string]string{
		".clineignore":       "private/\n",
		"private/secret.txt": "s3cret\n",
		"innocent.txt":       "hello\n",
		"plain.txt":          "hello\n",
		"private/s3cret.go":  "package p\n\nfunc s3cret() {}\n",
		"docs/readme.txt":    "docs\n",
		"notes/readme.txt":   "notes\n",
		"src/main.go":        "package main\n",
		"lib/lib.go":         "package lib\n\nfunc Lib() {}\n",
	}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	sess, err := f.coord.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		t.Fatal(err)
	}
	swap := symlinkSwapper(t, f.dir)
	cases := []struct {
		name  string
		use   api.ToolUse
		swap  func()
		check func(t *testing.T)
	}{
		{"read_file", toolUse("toolu_swap_read", "read_file", map[string]any{"path": "innocent.txt"}),
			func() { swap("innocent.txt", "private/secret.txt") }, nil},
		{"replace_in_file", toolUse("toolu_swap_edit", "replace_in_file", map[string]any{"path": "plain.txt", "diff": searchReplace("s3cret\n", "leaked\n")}),
			func() { swap("plain.txt", "private/secret.txt") }, nil},
		{"write_to_file into a swapped directory", toolUse("toolu_swap_write", "write_to_file", map[string]any{"path": "docs/new.txt", "content": "planted\n"}),
			func() { swap("docs", "private") },
			func(t *testing.T) {
				if _, err := os.Stat(filepath.Join(f.dir, "private", "new.txt")); !os.IsNotExist(err) {
					t.Errorf("private/new.txt was written (stat: %v)", err)
				}
			}},
		{"list_files of a swapped directory", toolUse("toolu_swap_list", "list_files", map[string]any{"path": "notes", "recursive": true}),
			func() { swap("notes", "private") }, nil},
		{"search_files in a swapped directory", toolUse("toolu_swap_search", "search_files", map[string]any{"path": "src", "regex": "s3cret"}),
			func() { swap("src", "private") }, nil},
		{"list_code_definition_names of a swapped directory", toolUse("toolu_swap_defs", "list_code_definition_names", map[string]any{"path": "lib"}),
			func() { swap("lib", "private") }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			approveAfterSwap(t, ts, sess, tc.use, tc.swap)
			if got, _ := os.ReadFile(filepath.Join(f.dir, "private", "secret.txt")); string(got) != "s3cret\n" {
				t.Errorf("private/secret.txt = %q, want it unchanged", got)
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
}

// symlinkSwapper returns a function that replaces name under dir with a
// symbolic link to target.
func symlinkSwapper(t *testing.T, dir string) func(name, target string) {
	return func(name, target string) {
		p := filepath.Join(dir, name)
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
}

// approveAfterSwap posts u as an assistant message to its session, runs
// swap while the call waits for its approval, approves it and checks the
// call was refused with code ignored and that its result holds no
// "s3cret".
func approveAfterSwap(t *testing.T, ts *testServer, sess *coordinator.Session, u api.ToolUse, swap func()) {
	t.Helper()
	body, _ := json.Marshal(assistant(u))
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/v1/sessions/"+sess.ID+"/messages", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := ts.Client().Do(req)
		if err != nil {
			resp = nil
		}
		answered <- resp
	}()
	awaitApprovalOf(t, sess, u.ID)
	swap()
	if _, err := ts.coord.Decide(sess, u.ID, api.DecisionRequest{Decision: api.DecisionApprove}, "token"); err != nil {
		t.Fatal(err)
	}
	resp := receive(t, answered)
	if resp == nil {
		t.Fatal("request failed")
	}
	out := decodeBody[api.MessageResponse](t, resp, http.StatusOK)
	rec, text := out.Calls[0], out.Message.Content[0].Content[0].Text
	if rec.Error == nil || rec.Error.Code != api.ToolCodeIgnored {
		t.Errorf("call = %+v %q, want refused with code ignored", rec, text)
	}
	if strings.Contains(text, "s3cret") {
		t.Errorf("the ignored file's content leaked: %q", text)
	}
}

// awaitApprovalOf waits for the awaiting_approval event of one call.
func awaitApprovalOf(t *testing.T, sess *coordinator.Session, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := sess.Events.WaitFor(ctx, 0, func(ev api.Event) bool {
		return ev.Type == api.EventToolAwaitingApproval && ev.ToolUseID == id
	}); err != nil {
		t.Fatalf("no tool.awaiting_approval event for %s: %v", id, err)
	}
}

// TestGrepIgnoreCheckedOnOpenedFile is TestIgnoreCheckedOnOpenedFile for
// Claude Code's Grep in a claude_code session: a file or directory named
// to Grep and swapped, while the call waits for its approval, for a link
// into an ignored directory is refused with code ignored, its content
// unread.
func TestGrepIgnoreCheckedOnOpenedFile(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: coordinator.DefaultConfig(), server: Config{Token: testToken}, files: map[string]string{
		".clineignore":       "private/\n",
		"private/secret.txt": "needle s3cret\n",
		"private/x.txt":      "needle s3cret\n",
		"lone.txt":           "needle\n",
		"lib/x.txt":          "needle\n",
	}})
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "permissions": map[string]any{"ask": []string{"Grep"}}}).ID
	sess, err := f.coord.Sessions().Get(sid)
	if err != nil {
		t.Fatal(err)
	}
	swap := symlinkSwapper(t, f.dir)
	for _, tc := range []struct {
		name string
		use  api.ToolUse
		swap func()
	}{
		{"a named file", toolUse("toolu_swap_grep_file", "Grep", map[string]any{"pattern": "needle", "path": "lone.txt", "output_mode": "content"}),
			func() { swap("lone.txt", "private/secret.txt") }},
		{"a named directory", toolUse("toolu_swap_grep_dir", "Grep", map[string]any{"pattern": "needle", "path": "lib", "output_mode": "content"}),
			func() { swap("lib", "private") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			approveAfterSwap(t, ts, sess, tc.use, tc.swap)
		})
	}
}
