package server

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestSessionNamedByClient: a client may name the session it creates (a
// conversation id, or the "demo" a request collection refers to); the
// name is its id and URL, a second session of that name is a conflict
// and a name that is no path segment is refused.
func TestSessionNamedByClient(t *testing.T) {
	f := scopeServer(t)
	resp, body := sendFull(t, f, flowToken, "POST", "/v1/sessions", map[string]any{"id": "demo", "mode": "plan"})
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Location") != "/v1/sessions/demo" {
		t.Fatalf("create: %d, Location %q: %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	var sess api.Session
	if err := json.Unmarshal(body, &sess); err != nil || sess.ID != "demo" || sess.Mode != api.ModePlan {
		t.Fatalf("session = %+v (%v)", sess, err)
	}
	if status, body := send(t, f, flowToken, "GET", "/v1/sessions/demo", nil); status != http.StatusOK {
		t.Fatalf("get: %d %s", status, body)
	}
	for _, tc := range []struct {
		id     string
		status int
		code   string
	}{
		{"demo", http.StatusConflict, api.CodeConflict},
		{"default", http.StatusConflict, api.CodeConflict},
		{"../etc", http.StatusBadRequest, api.CodeValidation},
		{"-x", http.StatusBadRequest, api.CodeValidation},
		{string(make([]byte, 65)), http.StatusBadRequest, api.CodeValidation},
	} {
		status, body := send(t, f, flowToken, "POST", "/v1/sessions", map[string]any{"id": tc.id})
		var e api.ErrorResponse
		_ = json.Unmarshal(body, &e)
		if status != tc.status || e.Error.Code != tc.code {
			t.Errorf("id %q: %d %s, want %d %s", tc.id, status, body, tc.status, tc.code)
		}
	}
	if status, body := send(t, f, flowToken, "DELETE", "/v1/sessions/demo", nil); status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", status, body)
	}
	if status, body := send(t, f, flowToken, "POST", "/v1/sessions", map[string]any{"id": "demo"}); status != http.StatusCreated {
		t.Errorf("a deleted session's name is free again: %d %s", status, body)
	}
}
