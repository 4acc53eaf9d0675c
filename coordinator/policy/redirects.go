package policy

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
// (EditRedirectDenial) is never waived, and a line that also cds, or
// whose targets hold an expansion, asks as any risky line does.

// decideWrites is the verdict on a command line whose only blocking
// risks are its output redirections into files (onlyFileWrites): a
// protected file or a path outside the workspace asks as always; else
// the commands are judged without the redirections, and what they would
// be allowed to do asks for the writes (AskWrites, which acceptEdits
// waives).
func (p *Policy) decideWrites(s *Subject, t *tool.Tool, session []*Rule, requiresApproval bool) Verdict {
	if v, ok := p.mustAsk(s, t); ok && v.Kind != AskRisky {
		return v
	}
	if f, ok := sandboxProtected(s.Writes); ok {
		return Verdict{Decision: Ask, Reason: fmt.Sprintf("approval required: the command writes %s, a file the sandbox protects (shell start-up files, editor and agent settings)", f)}
	}
	v := p.Decide(withoutRedirects(s), t, session, requiresApproval)
	if v.Decision != Allow {
		return v
	}
	if r, ok := p.editAllowed(s.Writes, session); ok {
		return Verdict{Decision: Allow, Rule: r, Reason: "allowed by " + r.String()}
	}
	return writesAsk(s)
}

// editAllowed returns the allow rule of an editing tool (Edit(notes/**))
// that covers every write, as Claude Code lets such a rule approve a
// redirection's target; session rules count unless forbid_session_allow.
func (p *Policy) editAllowed(writes []string, session []*Rule) (*Rule, bool) {
	var first *Rule
	for _, w := range writes {
		i := -1
		for _, rules := range [][]*Rule{p.Managed, session} {
			if i = slices.IndexFunc(rules, func(r *Rule) bool {
				return r.list == listAllow && editingTools[r.tool] && r.globs != nil && !r.absolute &&
					(r.layer == LayerManaged || !p.cfg.ForbidSessionAllow) && r.matchesPath(PathRef{Rel: w})
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
func onlyFileWrites(s *Subject) bool {
	if s.Command == nil || len(s.Writes) == 0 {
		return false
	}
	redirects := 0
	for _, r := range s.Command.Risks {
		if !r.Blocking() {
			continue
		}
		if r.Kind != shellcmd.KindRedirect || !strings.HasPrefix(strings.TrimLeft(r.Detail, "0123456789&"), ">") {
			return false
		}
		redirects++
	}
	return redirects > 0 && !slices.ContainsFunc(s.Command.Commands, func(c shellcmd.SimpleCommand) bool {
		return len(c.Args) > 0 && (c.Args[0] == "cd" || c.Args[0] == "pushd" || c.Args[0] == "popd")
	})
}

// withoutRedirects is the subject with the line's redirection risks left
// out, for judging its commands alone.
func withoutRedirects(s *Subject) *Subject {
	a := *s.Command
	a.Risks = slices.DeleteFunc(slices.Clone(a.Risks), func(r shellcmd.Risk) bool { return r.Kind == shellcmd.KindRedirect })
	rest := *s
	rest.Command = &a
	return &rest
}

// writesAsk is the ask for a line's redirection writes.
func writesAsk(s *Subject) Verdict {
	return Verdict{Decision: Ask, Kind: AskWrites, Reason: fmt.Sprintf("approval required: the command writes %s by output redirection", strings.Join(s.Writes, ", "))}
}
