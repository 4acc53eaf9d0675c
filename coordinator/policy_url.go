package coordinator

import (
	"net/url"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// deniedURL refuses a web address that a call reaches on its own after
// its policy check (a redirect, a link the browser follows) when a deny
// rule of either layer covers its host for the call's tool. Such an
// address was never shown for approval, so only deny rules can judge it.
func (c *Coordinator) deniedURL(s *Session, toolName, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	sub := &Subject{Tool: toolName, URL: raw, Host: strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))}
	layers := [][]*Rule{c.policy.Managed}
	if s != nil {
		layers = append(layers, s.permRules())
	}
	for _, rules := range layers {
		for _, r := range rules {
			if r.List == ListDeny && r.domain != "" && r.MatchesAny(sub) {
				return tool.Errorf(api.ToolCodeDenied, "%s is denied by %s", sub.Host, r)
			}
		}
	}
	return nil
}
