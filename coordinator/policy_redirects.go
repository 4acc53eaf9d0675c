package coordinator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// Output redirections as Claude Code 2.1 judges them (its Bash path
// check, measured by the conformance probe): a command line that writes
// files only by redirection (`echo hi > out.txt`, `ls > list.txt 2>&1`)
// is judged as its commands are, and its writes apart. In the default
// mode the writes ask; acceptEdits lets them write files in the
// workspace, as it lets Edit, and so does an Edit allow rule covering
// every target in any mode; bypassPermissions and allow_all let them run
// as before. A write outside the workspace, into a protected file
// (.git/config, shell start-up files) or a path an Edit deny rule covers
// (editRedirectDenial) is never waived, and a line that also cds, or
// whose targets hold an expansion, asks as any risky line does.

// decideWrites is the verdict on a command line whose only blocking
// risks are its output redirections into files (onlyFileWrites): a
// protected file or a path outside the workspace asks as always; else
// the commands are judged without the redirections, and what they would
// be allowed to do asks for the writes (askWrites, which acceptEdits
// waives).
func (p *policy) decideWrites(s *subject, t *tool.Tool, session []*permRule, requiresApproval bool) verdict {
	if v, ok := p.mustAsk(s, t); ok && v.kind != askRisky {
		return v
	}
	if f, ok := sandboxProtected(s.writes); ok {
		return verdict{decision: decideAsk, reason: fmt.Sprintf("approval required: the command writes %s, a file the sandbox protects (shell start-up files, editor and agent settings)", f)}
	}
	v := p.decide(withoutRedirects(s), t, session, requiresApproval)
	if v.decision != decideAllow {
		return v
	}
	if r, ok := p.editAllowed(s.writes, session); ok {
		return verdict{decision: decideAllow, rule: r, reason: "allowed by " + r.String()}
	}
	return writesAsk(s)
}

// editAllowed returns the allow rule of an editing tool (Edit(notes/**))
// that covers every write, as Claude Code lets such a rule approve a
// redirection's target; session rules count unless forbid_session_allow.
func (p *policy) editAllowed(writes []string, session []*permRule) (*permRule, bool) {
	var first *permRule
	for _, w := range writes {
		i := -1
		for _, rules := range [][]*permRule{p.managed, session} {
			if i = slices.IndexFunc(rules, func(r *permRule) bool {
				return r.list == listAllow && editingTools[r.tool] && r.globs != nil && !r.absolute &&
					(r.layer == layerManaged || !p.cfg.ForbidSessionAllow) && r.matchesPath(pathRef{rel: w})
			}); i >= 0 {
				if first == nil {
					first = rules[i]
				}
				break
			}
		}
		if i < 0 {
			return nil, false
		}
	}
	return first, first != nil
}

// sandboxProtected returns the first write into a path the sandbox keeps
// read-only in every workspace (sandbox.WorkspaceProtected): Claude Code
// asks before such a "sensitive file" is written in any mode, and an
// approved write would fail in the sandbox anyway.
func sandboxProtected(writes []string) (string, bool) {
	for _, w := range writes {
		for _, p := range sandbox.WorkspaceProtected() {
			if w == p || strings.HasPrefix(w, p+"/") || strings.HasSuffix(w, "/"+p) || strings.Contains(w, "/"+p+"/") {
				return w, true
			}
		}
	}
	return "", false
}

// onlyFileWrites reports whether the line's blocking risks are all
// output redirections (> file, >> file, 2> file, &> file) it records as
// writes, and no command of it is a cd (Claude Code asks before a cd
// with a redirection: the final directory decides where it writes).
func onlyFileWrites(s *subject) bool {
	if s.command == nil || len(s.writes) == 0 {
		return false
	}
	redirects := 0
	for _, r := range s.command.Risks {
		if !r.Blocking() {
			continue
		}
		if r.Kind != shellcmd.KindRedirect || !strings.HasPrefix(strings.TrimLeft(r.Detail, "0123456789&"), ">") {
			return false
		}
		redirects++
	}
	return redirects > 0 && !slices.ContainsFunc(s.command.Commands, func(c shellcmd.SimpleCommand) bool {
		return len(c.Args) > 0 && (c.Args[0] == "cd" || c.Args[0] == "pushd" || c.Args[0] == "popd")
	})
}

// withoutRedirects is the subject with the line's redirection risks left
// out, for judging its commands alone.
func withoutRedirects(s *subject) *subject {
	a := *s.command
	a.Risks = slices.DeleteFunc(slices.Clone(a.Risks), func(r shellcmd.Risk) bool { return r.Kind == shellcmd.KindRedirect })
	rest := *s
	rest.command = &a
	return &rest
}

// writesAsk is the ask for a line's redirection writes.
func writesAsk(s *subject) verdict {
	return verdict{decision: decideAsk, kind: askWrites, reason: fmt.Sprintf("approval required: the command writes %s by output redirection", strings.Join(s.writes, ", "))}
}
