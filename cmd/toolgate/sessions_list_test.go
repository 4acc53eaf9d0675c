package main

import (
	"maps"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestSessionListAfterRestart: GET /v1/sessions lists the sessions a
// stopped toolgate had, restored from its store, beside the default one.
func TestSessionListAfterRestart(t *testing.T) {
	dir := t.TempDir()
	args := sqliteArgs(t, "")
	inst := start(t, dir, args...)
	var ids []string
	for _, body := range []map[string]any{{"mode": "act"}, {"dialect": "claude_code"}} {
		var s api.Session
		if code := inst.postJSON(t, "/v1/sessions", body, &s); code != 201 {
			t.Fatalf("create session: %d", code)
		}
		ids = append(ids, s.ID)
	}
	if err := inst.stop(); err != nil {
		t.Fatal(err)
	}

	inst = start(t, dir, args...)
	var got api.SessionsResponse
	if code := inst.getJSON(t, "/v1/sessions", &got); code != 200 {
		t.Fatalf("GET /v1/sessions: %d", code)
	}
	listed := map[string]api.SessionSummary{}
	for _, s := range got.Sessions {
		listed[s.ID] = s
	}
	for _, id := range append([]string{"default"}, ids...) {
		if _, ok := listed[id]; !ok {
			t.Errorf("session %s is not listed after the restart; listed %v", id, slices.Collect(maps.Keys(listed)))
		}
	}
	if s := listed[ids[1]]; s.Dialect != api.DialectClaudeCode {
		t.Errorf("restored session %s = %+v, want its claude_code dialect back", ids[1], s)
	}
}
