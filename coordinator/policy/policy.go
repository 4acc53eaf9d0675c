package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// Decision is the outcome of the permission stage.
type Decision int

const (
	Allow Decision = iota
	Ask
	Deny
)

func (d Decision) String() string {
	return [...]string{"allow", "ask", "deny"}[d]
}

// Verdict is a decision with the reason a client or model is told.
type Verdict struct {
	Decision Decision
	Reason   string
	Rule     *Rule   // the deciding rule, if a rule decided
	Kind     AskKind // for an ask: what may waive it
	// Unsandboxed marks the ask of a command that leaves the sandbox
	// (the coordinator's unsandboxed.go), which the approval's preview
	// says.
	Unsandboxed bool
}

// AskKind says what may let a call run without the prompt a verdict asks
// for. The zero kind waives nothing, so an ask nobody classified stays.
type AskKind int

const (
	// AskHard: an ask rule, a protected file, a path outside the
	// workspace. Nothing but the user approves it.
	AskHard AskKind = iota
	// AskRisky: a command line with constructs no rule can approve;
	// bypassPermissions waives it, as allow_all does.
	AskRisky
	// AskDefault: toolgate's defaults; the permission modes and a
	// PreToolUse hook's allow waive it, as allow rules do.
	AskDefault
	// AskWrites: a command line's output redirections into workspace
	// files (redirects.go); acceptEdits and bypassPermissions waive it.
	AskWrites
)

// Policy evaluates permission rules: the managed rules from the config and
// a session's rules merged beneath them. It is built once, by New, and
// read by every call at once.
type Policy struct {
	cfg     Switches
	Managed []*Rule
	// mcpAutoApprove reports whether an MCP server's autoApprove lists a tool.
	mcpAutoApprove func(server, tool string) bool
	Protected      ProtectedFiles
	workspace      *tool.Workspace // nil: no paths are judged
	// commandNames are the names of every tool that runs a command line,
	// sorted (SetCommandTools).
	commandNames []string
	// readDenials keeps what WithReadDenials made (read_deny_memo.go).
	readDenials readDenialMemo
}

// Switches are the managed policy's switches the decision reads
// (coordinator.PolicyConfig holds them in the config file).
type Switches struct {
	// AllowAll allows every call that no deny or ask rule covers.
	AllowAll bool
	// ForbidSessionAllow ignores the allow rules of sessions.
	ForbidSessionAllow bool
	// AllowBypassPermissions lets sessions take the bypassPermissions mode.
	AllowBypassPermissions bool
}

// Options are what New builds a Policy from.
type Options struct {
	Switches
	// Managed are the managed policy's parsed rules (ParseRules).
	Managed []*Rule
	// MCPAutoApprove reports whether an MCP server's autoApprove lists a
	// tool; nil lists none.
	MCPAutoApprove func(server, tool string) bool
	// Workspace is where the judged paths live; nil judges no paths.
	Workspace *tool.Workspace
	// IgnoreFiles and ProtectedFiles extend the protected files
	// (NewProtected).
	IgnoreFiles, ProtectedFiles []string
}

// New builds the policy of a coordinator.
func New(o Options) *Policy {
	return &Policy{
		cfg:            o.Switches,
		Managed:        o.Managed,
		mcpAutoApprove: o.MCPAutoApprove,
		Protected:      NewProtected(o.Workspace, o.IgnoreFiles, o.ProtectedFiles),
		workspace:      o.Workspace,
	}
}

// SetCommandTools sets the names of every tool that runs a command line
// (sorted), which the registry knows only after the policy is built. A
// call running a command answers to each of them. Call it before the
// first call is judged.
func (p *Policy) SetCommandTools(names []string) { p.commandNames = names }

// Decide runs the permission decision for one call: deny rules of both
// layers, then ask rules, then the checks no allow rule may override
// (command risks, protected files), then allow rules, then the defaults.
// The first that applies decides.
func (p *Policy) Decide(s *Subject, t *tool.Tool, session []*Rule, requiresApproval bool) Verdict {
	layers := [][]*Rule{p.Managed, session}
	for _, list := range []string{listDeny, listAsk} {
		for _, rules := range layers {
			for _, r := range rules {
				if r.list == list && r.matchesAny(s) {
					d := Deny
					if list == listAsk {
						d = Ask
					}
					return Verdict{Decision: d, Rule: r, Reason: fmt.Sprintf("%s by %s", pastTense(d), r)}
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
	var allows []*Rule
	for _, rules := range layers {
		for _, r := range rules {
			if r.list == listAllow && (r.layer == LayerManaged || !p.cfg.ForbidSessionAllow) {
				allows = append(allows, r)
			}
		}
	}
	if r, ok := covers(allows, s); ok {
		return Verdict{Decision: Allow, Rule: r, Reason: "allowed by " + r.String()}
	}
	if p.cfg.AllowAll {
		return Verdict{Decision: Allow, Reason: AllowAllReason}
	}
	return p.defaults(s, t, requiresApproval)
}

func pastTense(d Decision) string {
	if d == Deny {
		return "denied"
	}
	return "approval required"
}

// OutsideReason says why a command word that may name a file outside the
// workspace needs approval.
func OutsideReason(word string) string {
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
func (p *Policy) mustAsk(s *Subject, t *tool.Tool) (Verdict, bool) {
	if s.Command != nil {
		readOnly := s.Command.ReadOnly()
		if f, ok := p.Protected.touched(s.Paths); ok && !readOnly {
			return Verdict{Decision: Ask, Reason: fmt.Sprintf("approval required: the command names %s, a protected file", f)}, true
		}
		if len(s.Outside) > 0 {
			return Verdict{Decision: Ask, Reason: OutsideReason(s.Outside[0])}, true
		}
		if p.cfg.AllowAll {
			return Verdict{}, false
		}
		if risks := BlockingRisks(s.Command); len(risks) > 0 {
			return Verdict{Decision: Ask, Kind: AskRisky, Reason: "approval required: the command line has constructs no rule can approve: " + strings.Join(risks, ", ")}, true
		}
		return Verdict{}, false
	}
	if t.Writes {
		if f, ok := p.Protected.touched(s.Paths); ok {
			return Verdict{Decision: Ask, Reason: fmt.Sprintf("approval required: %s is a protected file", f)}, true
		}
	}
	return Verdict{}, false
}

// BlockingRisks names the risks that forbid auto-approval, each once.
func BlockingRisks(a *shellcmd.Analysis) []string {
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
func covers(allows []*Rule, s *Subject) (*Rule, bool) {
	// No rule covers anything: without one, the matchers below are
	// not made (BenchmarkCoversNoRule).
	if len(allows) == 0 {
		return nil, false
	}
	for _, r := range allows {
		if r.MatchesName(s) && !r.hasContent {
			return r, true
		}
	}
	switch {
	case s.Command != nil:
		return coverCommands(allows, s)
	case s.URL != "":
		return coverEach(allows, s, []string{s.Host}, func(r *Rule, host string) bool {
			return r.domain != "" && domainMatches(r.domain, host)
		})
	case len(s.Paths) > 0:
		return coverEach(allows, s, s.Paths, (*Rule).matchesPath)
	}
	return nil, false
}

// coverCommands reports whether allow rules cover a command line as
// Claude Code judges a compound command: every simple command is matched
// by an allow rule or reads only (Bash(touch:*) allows
// `touch x && echo done`), and at least one is matched by a rule. The
// line's risks were weighed before (mustAsk).
func coverCommands(allows []*Rule, s *Subject) (*Rule, bool) {
	var first *Rule
	for _, c := range s.Command.Commands {
		i := slices.IndexFunc(allows, func(r *Rule) bool { return r.MatchesName(s) && shellcmd.MatchRule(r.content, c) })
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
func coverEach[T any](allows []*Rule, s *Subject, items []T, match func(*Rule, T) bool) (*Rule, bool) {
	var first *Rule
	for _, it := range items {
		i := slices.IndexFunc(allows, func(r *Rule) bool { return r.MatchesName(s) && match(r, it) })
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
func (p *Policy) defaults(s *Subject, t *tool.Tool, requiresApproval bool) Verdict {
	switch {
	case s.Command != nil:
		if requiresApproval {
			return Verdict{Decision: Ask, Kind: AskDefault, Reason: "approval required: the model marked the command as requiring approval"}
		}
		if !s.Command.ReadOnly() {
			return Verdict{Decision: Ask, Kind: AskDefault, Reason: "approval required: the command is not on the read-only list (default)"}
		}
		return Verdict{Decision: Allow, Reason: "allowed: read-only command (default)"}
	case s.Tool == tool.UseMCPTool:
		if p.mcpAutoApprove != nil && p.mcpAutoApprove(s.MCPServer, s.MCPTool) {
			return Verdict{Decision: Allow, Reason: "allowed: listed in the MCP server's autoApprove"}
		}
		return Verdict{Decision: Ask, Kind: AskDefault, Reason: "approval required: MCP tools ask unless the server's autoApprove lists them (default)"}
	case t.Writes:
		return Verdict{Decision: Ask, Kind: AskDefault, Reason: "approval required: edits ask (default)"}
	case s.URL != "":
		return Verdict{Decision: Ask, Kind: AskDefault, Reason: "approval required: reaching a web address asks unless a rule such as " +
			t.Name + "(domain:" + s.Host + ") allows it (default)"}
	}
	return Verdict{Decision: Allow, Reason: ReadDefaultReason}
}

// AllowAllReason is the reason of allow_all's verdict on a call no rule
// decides: under allow_all, nearly every call's.
const AllowAllReason = "allowed by allow_all (managed policy)"

// ReadDefaultReason is the reason of the default verdict on a call that
// reads inside the workspace, the most frequent verdict.
const ReadDefaultReason = "allowed: reads inside the workspace (default)"

// ManagedRules parses the managed policy's rules. A rule that does not
// parse makes every call ask, failing closed: the rules returned with the
// error are one ask rule for every tool.
func ManagedRules(perms api.Permissions) ([]*Rule, error) {
	managed, err := ParseRules(perms, LayerManaged)
	if err != nil {
		return []*Rule{{Text: "*", list: listAsk, layer: LayerManaged + " (invalid rules)", tool: "*"}}, err
	}
	return managed, nil
}

// SessionRules parses a session's rules; rules that do not parse (they
// are validated when set, so only a programmer error gets here) are
// dropped from allow and kept out of nothing else: an unparseable deny
// rule makes every call ask.
func SessionRules(p api.Permissions) []*Rule {
	rules, err := ParseRules(p, layerSession)
	if err != nil {
		return []*Rule{{Text: "*", list: listAsk, layer: layerSession + " (invalid rules: " + err.Error() + ")", tool: "*"}}
	}
	return rules
}
