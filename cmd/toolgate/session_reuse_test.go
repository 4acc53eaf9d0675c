package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestDeletedSessionsCallsStayWithIt: a client deletes its session, and
// another client creates one under the same chosen id. After a restart
// (the SQLite store) the new session must not list the deleted one's
// calls, must not answer their ids from the store (that would hand over
// what the old calls read), and must run a call that reuses such an id.
func TestDeletedSessionsCallsStayWithIt(t *testing.T) {
	const secret = "FIRST-OWNER-SECRET-31"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "private.txt"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := sqliteArgs(t, "")
	inst := start(t, dir, args...)
	create := map[string]any{"id": "shared-id", "mode": "act"}
	if code := inst.postJSON(t, "/v1/sessions", create, nil); code != 201 {
		t.Fatalf("create the first session: %d", code)
	}
	base := "/v1/sessions/shared-id"
	read := map[string]any{"id": "r1", "name": "read_file", "input": map[string]any{"path": "private.txt"}}
	var first api.MessageResponse
	if code := inst.postJSON(t, base+"/messages", message(read), &first); code != 200 || first.Calls[0].Status != api.StatusSucceeded {
		t.Fatalf("first owner's read: %d %+v", code, first)
	}
	req, _ := http.NewRequest("DELETE", inst.url+base, nil)
	req.Header.Set("Authorization", "Bearer "+inst.token)
	resp, err := testHTTP.Do(req)
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("delete: %v %v", err, resp)
	}
	resp.Body.Close()
	if code := inst.postJSON(t, "/v1/sessions", create, nil); code != 201 {
		t.Fatalf("create the second session under the same id: %d", code)
	}
	if err := inst.stop(); err != nil {
		t.Fatal(err)
	}

	inst = start(t, dir, args...)
	var calls api.CallsResponse
	if code := inst.getJSON(t, base+"/calls", &calls); code != 200 {
		t.Fatalf("calls after restart: %d", code)
	}
	if len(calls.Calls) != 0 {
		t.Errorf("the new session lists the deleted session's calls after a restart: %+v", calls.Calls)
	}
	// The same id, now naming a file that does not exist: a fresh run
	// fails; an answer from the store would be the old read.
	again := map[string]any{"id": "r1", "name": "read_file", "input": map[string]any{"path": "absent.txt"}}
	var second api.MessageResponse
	code := inst.postJSON(t, base+"/messages", message(again), &second)
	if code != 200 || len(second.Message.Content) != 1 {
		t.Fatalf("re-used id after restart: %d %+v", code, second)
	}
	text := ""
	for _, c := range second.Message.Content[0].Content {
		text += c.Text
	}
	if strings.Contains(text, secret) || !strings.Contains(text, "absent.txt") {
		t.Errorf("the new session's r1 was answered with the deleted session's result: %q", text)
	}
}
