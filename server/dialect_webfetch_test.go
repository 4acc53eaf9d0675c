package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestWebFetchDomainRules: Claude Code's WebFetch(domain:…) rules
// (code.claude.com/docs/en/settings, "Permission rules": WebFetch(domain:
// example.com) matches fetch requests to example.com) decide web_fetch
// calls by the URL's host, in a claude_code session calling WebFetch and
// in a Cline session calling web_fetch alike. A bare domain is that host
// only (subdomains need their own rule, as in Claude Code); *.example.com
// covers the names below example.com. A URL no rule covers asks.
func TestWebFetchDomainRules(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<h2>Hello</h2>")
	}))
	t.Cleanup(site.Close)
	cfg := coordinator.DefaultConfig()
	cfg.WebFetch.AllowAddresses = []netip.AddrPort{netip.MustParseAddrPort(site.Listener.Addr().String())}
	cfg.Permissions.Allow = []string{"WebFetch(domain:127.0.0.1)"}
	cfg.Permissions.Deny = []string{"WebFetch(domain:*.blocked.test)", "WebFetch(domain:evil.test)"}
	ts, _ := newDialectServer(t, cfg, nil)
	cc := newSessionOf(t, ts, map[string]any{"dialect": "claude_code"}).ID
	cline := newSessionOf(t, ts, map[string]any{}).ID
	for i, tc := range []struct {
		name, session, tool, url string
		want                     api.CallStatus
		wantAsked                int
		wantText                 string
	}{
		{"allowed host runs without a prompt", cc, "WebFetch", site.URL + "/", api.StatusSucceeded, 0, "## Hello"},
		{"subdomain under a *. deny rule", cc, "WebFetch", "https://api.blocked.test/x", api.StatusDenied, 0, `WebFetch(domain:*.blocked.test)`},
		{"deeper subdomain under a *. deny rule", cc, "WebFetch", "https://a.b.blocked.test/", api.StatusDenied, 0, "blocked.test"},
		{"*. does not cover the domain itself", cc, "WebFetch", "https://blocked.test/", api.StatusDenied, 1, "denied this operation"},
		{"bare domain denied", cc, "WebFetch", "https://evil.test/page", api.StatusDenied, 0, `WebFetch(domain:evil.test)`},
		{"host case and trailing dot do not matter", cc, "WebFetch", "https://EVIL.test./", api.StatusDenied, 0, "evil.test"},
		{"a bare domain is not its subdomains", cc, "WebFetch", "https://sub.evil.test/", api.StatusDenied, 1, "denied this operation"},
		{"a look-alike host is not the domain", cc, "WebFetch", "https://evil.test.example/", api.StatusDenied, 1, "denied this operation"},
		{"the same rules in a Cline session", cline, "web_fetch", "https://evil.test/", api.StatusDenied, 0, `WebFetch(domain:evil.test)`},
		{"and their allow", cline, "web_fetch", site.URL + "/", api.StatusSucceeded, 0, "## Hello"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Every prompt is rejected: nothing is fetched from the
			// made-up hosts.
			text, st, asked := runDeciding(t, ts, tc.session, "toolu_wf"+string(rune('a'+i)), tc.tool,
				map[string]any{"url": tc.url, "prompt": "what does it say?"}, api.DecisionReject)
			if st != tc.want || len(asked) != tc.wantAsked || !strings.Contains(text, tc.wantText) {
				t.Errorf("status %s, asked %d, result %q; want %s, asked %d, containing %q", st, len(asked), text, tc.want, tc.wantAsked, tc.wantText)
			}
		})
	}
}
