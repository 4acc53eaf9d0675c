package policy

import (
	"net/url"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// DeniedURL refuses a web address that a call reaches on its own after
// its policy check (a redirect, a link the browser follows) when a deny
// rule of either layer covers its host for the call's tool. Such an
// address was never shown for approval, so only deny rules can judge it.
// session are the session's rules, nil for none.
func (p *Policy) DeniedURL(session []*Rule, toolName, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	sub := &Subject{Tool: toolName, URL: raw, Host: strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))}
	for _, rules := range [][]*Rule{p.Managed, session} {
		for _, r := range rules {
			if r.list == listDeny && r.domain != "" && r.matchesAny(sub) {
				return tool.Errorf(api.ToolCodeDenied, "%s is denied by %s", sub.Host, r)
			}
		}
	}
	return nil
}
