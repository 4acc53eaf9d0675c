package server

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// TestAuditPagesAndFilters runs calls in two sessions and reads them back
// through GET /v1/audit: pages newest first joined by next_cursor, filters
// by session, tool, status and time, and a clear 400 for bad filters.
func TestAuditPagesAndFilters(t *testing.T) {
	ts := newTestServer(t)
	before := time.Now().UTC()
	sess := decodeBody[api.Session](t, ts.do(t, "POST", "/v1/sessions", map[string]any{}), 201)
	var want []string // newest first
	for _, c := range []struct{ sid, id, tool string }{
		{"default", "a1", "echo"}, {sess.ID, "a2", "boom"}, {"default", "a3", "echo"},
		{sess.ID, "a4", "echo"}, {"default", "a5", "boom"},
	} {
		msg := assistant(toolUse(c.id, c.tool, map[string]any{"text": "x"}))
		decodeBody[api.MessageResponse](t, ts.do(t, "POST", "/v1/sessions/"+c.sid+"/messages", msg), 200)
		want = append([]string{c.id}, want...)
	}
	after := time.Now().UTC()

	audit := func(q url.Values) api.AuditResponse {
		t.Helper()
		return decodeBody[api.AuditResponse](t, ts.do(t, "GET", "/v1/audit?"+q.Encode(), nil), 200)
	}
	ids := func(r api.AuditResponse) string {
		var out []string
		for _, c := range r.Calls {
			out = append(out, c.ToolUseID)
		}
		return strings.Join(out, " ")
	}

	t.Run("paging", func(t *testing.T) {
		var got []string
		q := url.Values{"limit": {"2"}}
		for pages := 0; pages < 10; pages++ {
			page := audit(q)
			got = append(got, ids(page))
			if page.NextCursor == "" {
				break
			}
			q.Set("cursor", page.NextCursor)
		}
		if strings.Join(got, " | ") != "a5 a4 | a3 a2 | a1" {
			t.Errorf("pages = %q, want a5 a4 | a3 a2 | a1", got)
		}
	})
	t.Run("filters", func(t *testing.T) {
		tests := []struct {
			q    url.Values
			want string
		}{
			{url.Values{"session": {sess.ID}}, "a4 a2"},
			{url.Values{"tool": {"boom"}}, "a5 a2"},
			{url.Values{"status": {"failed"}, "session": {"default"}}, "a5"},
			{url.Values{"since": {before.Format(time.RFC3339Nano)}, "until": {after.Format(time.RFC3339Nano)}}, strings.Join(want, " ")},
			{url.Values{"until": {before.Format(time.RFC3339Nano)}}, ""},
		}
		for _, tt := range tests {
			if got := ids(audit(tt.q)); got != tt.want {
				t.Errorf("%v: got %q, want %q", tt.q, got, tt.want)
			}
		}
	})
	t.Run("record", func(t *testing.T) {
		page := audit(url.Values{"tool": {"boom"}, "limit": {"1"}})
		c := page.Calls[0]
		if c.SessionID != "default" || c.Status != api.StatusFailed || c.ErrorCode != api.ToolCodePanic ||
			string(c.Input) != `{"text":"x"}` || c.InputSHA256 == "" || c.Decision != "allow" || c.ResultBytes == 0 {
			t.Errorf("record = %+v", c)
		}
		if c.Result != nil { // a call that changed nothing keeps its result's size only
			t.Errorf("record of a call without effects keeps its result %+v", c.Result)
		}
	})
	t.Run("bad filters", func(t *testing.T) {
		e := decodeBody[api.ErrorResponse](t, ts.do(t, "GET", "/v1/audit?since=yesterday&limit=0&cursor=x", nil), 400)
		for _, f := range []string{"since", "limit", "cursor"} {
			if e.Error.Fields[f] == "" {
				t.Errorf("no message for %s: %+v", f, e.Error)
			}
		}
	})
}
