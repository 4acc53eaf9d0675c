package server

import (
	"net/http"
	"strings"
	"testing"
)

func TestConsoleFiles(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	tests := []struct {
		path, wantType, wantBody string
	}{
		{"/", "text/html", `<script src="/console/console.js"`},
		{"/console/console.js", "javascript", "/v1/tools"},
		{"/console/approval.js", "javascript", "/decision"},
		{"/console/console.css", "text/css", "#timeline"},
		{"/console/streams.js", "javascript", "/events"},
		{"/console/sessions.js", "javascript", "/v1/sessions"},
		{"/console/inbox.js", "javascript", "/v1/approvals"},
		{"/console/charts.js", "javascript", "/v1/tool-stats"},
		{"/console/filters.js", "javascript", "applyFilter"},
		{"/console/audit.js", "javascript", "/v1/audit/export"},
		{"/console/terminal.js", "javascript", "/stdin"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := env.do(t, "GET", tt.path, "", nil) // no token: the page asks for it
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200", resp.StatusCode)
			}
			if got := resp.Header.Get("Content-Type"); !strings.Contains(got, tt.wantType) {
				t.Errorf("Content-Type = %q, want %s", got, tt.wantType)
			}
			for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options"} {
				if resp.Header.Get(h) == "" {
					t.Errorf("no %s header", h)
				}
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
				t.Errorf("Content-Security-Policy = %q, want framing refused and no inline script", csp)
			}
			if body := readAll(t, resp.Body); !strings.Contains(body, tt.wantBody) {
				t.Errorf("body lacks %q", tt.wantBody)
			}
		})
	}
	for _, p := range []string{"/console/nope.js", "/console/index.html", "/console/", "/console/..%2fconsole.go"} {
		t.Run("missing "+p, func(t *testing.T) {
			if resp := env.do(t, "GET", p, "", nil); resp.StatusCode != http.StatusNotFound {
				t.Errorf("status = %d, want 404", resp.StatusCode)
			}
		})
	}
}
