package policy

// JudgeHost judges a host a command reaches through its session's proxy,
// as the subject sub names it (its tool and host): the deny rule of
// either layer that covers it, or else whether the allow rules of one
// layer cover it. session are the session's rules.
func (p *Policy) JudgeHost(session []*Rule, sub *Subject) (deny *Rule, allowed bool) {
	for _, rules := range [][]*Rule{p.Managed, session} {
		for _, r := range rules {
			if r.list == listDeny && r.matchesAny(sub) {
				return r, false
			}
		}
	}
	for _, rules := range [][]*Rule{p.Managed, session} {
		var allows []*Rule
		for _, r := range rules {
			if r.list == listAllow {
				allows = append(allows, r)
			}
		}
		if _, ok := covers(allows, sub); ok {
			return nil, true
		}
	}
	return nil, false
}

// DeniedOutright reports whether a bare deny rule, managed or of the
// session (nil for none), names the subject's tool, so that tool lists
// can leave it out.
func (p *Policy) DeniedOutright(session []*Rule, sub *Subject) bool {
	for _, rules := range [][]*Rule{p.Managed, session} {
		for _, r := range rules {
			if r.list == listDeny && !r.hasContent && r.MatchesName(sub) {
				return true
			}
		}
	}
	return false
}
