package coordinator

import (
	"context"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
)

type urlIn struct {
	URL string `json:"url" validate:"required"`
}

// urlTool stands in for web_fetch: a tool whose input reaches a URL.
func urlTool(r *ran) tool.Registration {
	return tool.Registration{Name: "web_fetch", Factory: func(name string, env tool.Env) *tool.Tool {
		return NewTool(tool.Spec[urlIn]{Name: name,
			Run: func(_ context.Context, c *tool.Call, in *urlIn) (tool.Result, error) {
				r.add(c.ToolUseID)
				return tool.TextResult("fetched"), nil
			},
			URL: func(in *urlIn) string { return in.URL }})
	}}
}

// TestDomainRules: Claude Code's web_fetch(domain:example.com) rules
// decide by the URL's host; a URL no rule covers asks.
func TestDomainRules(t *testing.T) {
	r := &ran{}
	p := newTestPolicy(t, Config{}, nil)
	p.c = New(Options{Config: Config{Permissions: api.Permissions{Deny: []string{"web_fetch(domain:evil.example)"}}},
		Workspace: p.c.workspace, Tools: []tool.Registration{urlTool(r)}})
	p.ran = r
	t.Cleanup(p.c.Close)
	s := p.session(t, api.Permissions{Allow: []string{"web_fetch(domain:example.com)", "web_fetch(domain:*.docs.example)"}})
	for _, tc := range []struct{ url, want string }{
		{"https://example.com/a", "allow"},
		{"https://EXAMPLE.com./b", "allow"},
		{"https://api.docs.example/x", "allow"},
		{"https://docs.example/x", "ask"},   // *. covers subdomains only
		{"https://sub.example.com/", "ask"}, // a bare domain is that host only
		{"https://example.com.evil.test/", "ask"},
		{"https://evil.example/", "deny"},
		{"https://other.test/", "ask"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			got, rec, text := p.decideOnly(t, s, use("u"+strings.NewReplacer("/", "_", ":", "_").Replace(tc.url), "web_fetch", map[string]any{"url": tc.url}))
			if got != tc.want {
				t.Errorf("got %s (%+v %q), want %s", got, rec, text, tc.want)
			}
		})
	}
	for _, bad := range []string{"web_fetch(domain:)", "web_fetch(domain:http://x.com)", "web_fetch(domain:a*.com)"} {
		if err := policy.ValidatePermissions(api.Permissions{Allow: []string{bad}}); err == nil {
			t.Errorf("rule %q accepted, want refused", bad)
		}
	}
}
