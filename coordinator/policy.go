package coordinator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// decision is the outcome of the permission stage.
type decision int

const (
	decideAllow decision = iota
	decideAsk
	decideDeny
)

func (d decision) String() string {
	return [...]string{"allow", "ask", "deny"}[d]
}

// verdict is a decision with the reason a client or model is told.
type verdict struct {
	decision decision
	reason   string
	rule     *permRule // the deciding rule, if a rule decided
	kind     askKind   // for an ask: what may waive it
	// unsandboxed marks the ask of a command that leaves the sandbox
	// (unsandboxed.go), which the approval's preview says.
	unsandboxed bool
}

// askKind says what may let a call run without the prompt a verdict asks
// for. The zero kind waives nothing, so an ask nobody classified stays.
type askKind int

const (
	// askHard: an ask rule, a protected file, a path outside the
	// workspace. Nothing but the user approves it.
	askHard askKind = iota
	// askRisky: a command line with constructs no rule can approve;
	// bypassPermissions waives it, as allow_all does.
	askRisky
	// askDefault: toolgate's defaults; the permission modes and a
	// PreToolUse hook's allow waive it, as allow rules do.
	askDefault
	// askWrites: a command line's output redirections into workspace
	// files (policy_redirects.go); acceptEdits and bypassPermissions
	// waive it.
	askWrites
)

// policy evaluates permission rules: the managed rules from the config and
// a session's rules merged beneath them.
type policy struct {
	cfg     *Config
	managed []*permRule
	// mcpAutoApprove reports whether an MCP server's autoApprove lists a tool.
	mcpAutoApprove func(server, tool string) bool
	protected      protectedFiles
}

// decide runs the permission decision for one call: deny rules of both
// layers, then ask rules, then the checks no allow rule may override
// (command risks, protected files), then allow rules, then the defaults.
// The first that applies decides.
func (p *policy) decide(s *subject, t *tool.Tool, session []*permRule, requiresApproval bool) verdict {
	layers := [][]*permRule{p.managed, session}
	for _, list := range []string{listDeny, listAsk} {
		for _, rules := range layers {
			for _, r := range rules {
				if r.list == list && r.matchesAny(s) {
					d := decideDeny
					if list == listAsk {
						d = decideAsk
					}
					return verdict{decision: d, rule: r, reason: fmt.Sprintf("%s by %s", pastTense(d), r)}
				}
			}
		}
	}
	if !p.cfg.AllowAll && onlyFileWrites(s) {
		return p.decideWrites(s, t, session, requiresApproval)
	}
	if v, ok := p.mustAsk(s, t); ok {
		return v
	}
	var allows []*permRule
	for _, rules := range layers {
		for _, r := range rules {
			if r.list == listAllow && (r.layer == layerManaged || !p.cfg.ForbidSessionAllow) {
				allows = append(allows, r)
			}
		}
	}
	if r, ok := covers(allows, s); ok {
		return verdict{decision: decideAllow, rule: r, reason: "allowed by " + r.String()}
	}
	if p.cfg.AllowAll {
		return verdict{decision: decideAllow, reason: "allowed by allow_all (managed policy)"}
	}
	return p.defaults(s, t, requiresApproval)
}

func pastTense(d decision) string {
	if d == decideDeny {
		return "denied"
	}
	return "approval required"
}

// outsideReason says why a command word that may name a file outside the
// workspace needs approval.
func outsideReason(word string) string {
	if rel, ok := shellcmd.InUnknownDir(word); ok {
		return fmt.Sprintf("approval required: the command names %q after a cd or exec whose effect cannot be known beforehand, so where it points and whether ignore rules cover it cannot be checked", rel)
	}
	return fmt.Sprintf("approval required: the command names %q, outside the workspace, where ignore rules cannot be checked", word)
}

// mustAsk lists what no allow rule can approve: a command line with a
// construct whose effect cannot be read off its words, or naming paths
// outside the workspace, and writes to protected files. allow_all, a
// deliberate choice of the managed policy, still approves risky command
// lines; protected files and paths outside the workspace ask even then.
func (p *policy) mustAsk(s *subject, t *tool.Tool) (verdict, bool) {
	if s.command != nil {
		readOnly := s.command.ReadOnly()
		if f, ok := p.protected.touched(s.paths); ok && !readOnly {
			return verdict{decision: decideAsk, reason: fmt.Sprintf("approval required: the command names %s, a protected file", f)}, true
		}
		if len(s.outside) > 0 {
			return verdict{decision: decideAsk, reason: outsideReason(s.outside[0])}, true
		}
		if p.cfg.AllowAll {
			return verdict{}, false
		}
		if risks := blockingRisks(s.command); len(risks) > 0 {
			return verdict{decision: decideAsk, kind: askRisky, reason: "approval required: the command line has constructs no rule can approve: " + strings.Join(risks, ", ")}, true
		}
		return verdict{}, false
	}
	if t.Writes {
		if f, ok := p.protected.touched(s.paths); ok {
			return verdict{decision: decideAsk, reason: fmt.Sprintf("approval required: %s is a protected file", f)}, true
		}
	}
	return verdict{}, false
}

// blockingRisks names the risks that forbid auto-approval, each once.
func blockingRisks(a *shellcmd.Analysis) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range a.Risks {
		if r.Blocking() && !seen[r.Kind] {
			seen[r.Kind] = true
			out = append(out, r.Kind)
		}
	}
	return out
}

// covers reports whether allow rules cover the whole call: every simple
// command of a command line, every path of a file call, each by some rule.
// It returns the first rule used.
func covers(allows []*permRule, s *subject) (*permRule, bool) {
	for _, r := range allows {
		if r.matchesName(s) && !r.hasContent {
			return r, true
		}
	}
	switch {
	case s.command != nil:
		return coverCommands(allows, s)
	case s.url != "":
		return coverEach(allows, s, []string{s.host}, func(r *permRule, host string) bool {
			return r.domain != "" && domainMatches(r.domain, host)
		})
	case len(s.paths) > 0:
		return coverEach(allows, s, s.paths, (*permRule).matchesPath)
	}
	return nil, false
}

// coverCommands reports whether allow rules cover a command line as
// Claude Code judges a compound command: every simple command is matched
// by an allow rule or reads only (Bash(touch:*) allows
// `touch x && echo done`), and at least one is matched by a rule. The
// line's risks were weighed before (mustAsk).
func coverCommands(allows []*permRule, s *subject) (*permRule, bool) {
	var first *permRule
	for _, c := range s.command.Commands {
		i := slices.IndexFunc(allows, func(r *permRule) bool { return r.matchesName(s) && shellcmd.MatchRule(r.content, c) })
		switch {
		case i >= 0 && first == nil:
			first = allows[i]
		case i < 0 && !c.ReadOnly():
			return nil, false
		}
	}
	return first, first != nil
}

// coverEach reports whether every item is matched by some allow rule for
// the subject's tool, returning the first rule used. No items cover nothing.
func coverEach[T any](allows []*permRule, s *subject, items []T, match func(*permRule, T) bool) (*permRule, bool) {
	var first *permRule
	for _, it := range items {
		i := slices.IndexFunc(allows, func(r *permRule) bool { return r.matchesName(s) && match(r, it) })
		if i < 0 {
			return nil, false
		}
		if first == nil {
			first = allows[i]
		}
	}
	return first, first != nil
}

// defaults are Cline's auto-approval settings: reads allowed, edits ask,
// read-only commands allowed unless the model asked for approval, MCP
// tools ask unless the server auto-approves them.
func (p *policy) defaults(s *subject, t *tool.Tool, requiresApproval bool) verdict {
	switch {
	case s.command != nil:
		if requiresApproval {
			return verdict{decision: decideAsk, kind: askDefault, reason: "approval required: the model marked the command as requiring approval"}
		}
		if !s.command.ReadOnly() {
			return verdict{decision: decideAsk, kind: askDefault, reason: "approval required: the command is not on the read-only list (default)"}
		}
		return verdict{decision: decideAllow, reason: "allowed: read-only command (default)"}
	case s.tool == UseMCPTool:
		if p.mcpAutoApprove != nil && p.mcpAutoApprove(s.mcpServer, s.mcpTool) {
			return verdict{decision: decideAllow, reason: "allowed: listed in the MCP server's autoApprove"}
		}
		return verdict{decision: decideAsk, kind: askDefault, reason: "approval required: MCP tools ask unless the server's autoApprove lists them (default)"}
	case t.Writes:
		return verdict{decision: decideAsk, kind: askDefault, reason: "approval required: edits ask (default)"}
	case s.url != "":
		return verdict{decision: decideAsk, kind: askDefault, reason: "approval required: reaching a web address asks unless a rule such as " +
			t.Name + "(domain:" + s.host + ") allows it (default)"}
	}
	return verdict{decision: decideAllow, reason: "allowed: reads inside the workspace (default)"}
}

// sessionRules parses a session's rules; rules that do not parse (they
// are validated when set, so only a programmer error gets here) are
// dropped from allow and kept out of nothing else: an unparseable deny
// rule makes every call ask.
func sessionRules(p api.Permissions) []*permRule {
	rules, err := parseRules(p, layerSession)
	if err != nil {
		return []*permRule{{text: "*", list: listAsk, layer: layerSession + " (invalid rules: " + err.Error() + ")", tool: "*"}}
	}
	return rules
}
