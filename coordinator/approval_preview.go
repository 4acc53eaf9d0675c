package coordinator

import (
	"context"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// preview shows what a call would do: a command line and its parts, or
// the paths and, for a tool that writes, the diff its own Preview
// computes. Other tools show their input. A command's words are judged as
// possible paths by the policy, but listing them as paths would show
// "step $i" or "0.5" as files: its parts show them as they are.
func (c *Coordinator) preview(ctx context.Context, s *Session, sub *policy.Subject, t *tool.Tool, in any, raw []byte) api.Preview {
	var p api.Preview
	if sub.Command != nil {
		p.Command = sub.Line
		for _, cmd := range sub.Command.Commands {
			p.Parts = append(p.Parts, api.CommandPart{Args: cmd.Args, Dir: cmd.Dir})
		}
		p.Risks = policy.BlockingRisks(sub.Command)
		p.Sandbox = c.sandboxPreview(sub.Background)
		return p
	}
	for _, r := range sub.Paths {
		p.Paths = append(p.Paths, r.Rel)
	}
	if t.HasPreview() {
		p.Diff, p.Error = c.toolPreview(ctx, s, t, in, "", false)
		return p
	}
	p.Input = api.RawJSON(raw)
	return p
}

// rememberRules are the allow rules that cover exactly this call's shape:
// one per simple command for a command line, one per path for a file tool,
// the server and tool for MCP, else the bare tool name. A command whose
// words a rule cannot spell (spaces, "*"), or that has risky constructs
// (which no allow rule approves), gives none.
func rememberRules(sub *policy.Subject, t *tool.Tool) []string {
	switch {
	case sub.Command != nil:
		if len(policy.BlockingRisks(sub.Command)) > 0 || len(sub.Command.Commands) == 0 {
			return nil
		}
		var out []string
		for _, c := range sub.Command.Commands {
			for _, a := range c.Args {
				if a == "" || strings.ContainsAny(a, " \t\n*") {
					return nil
				}
			}
			r := t.Name + "(" + strings.Join(c.Args, " ") + ")"
			if !contains(out, r) {
				out = append(out, r)
			}
		}
		return out
	case sub.Tool == tool.UseMCPTool:
		if sub.MCPServer == "" || sub.MCPTool == "" {
			return nil
		}
		return []string{tool.MCPPrefix + sub.MCPServer + "__" + sub.MCPTool}
	case sub.URL != "":
		if sub.Host == "" {
			return nil
		}
		return []string{t.Name + "(" + policy.DomainPrefix + sub.Host + ")"}
	case len(sub.Paths) > 0:
		var out []string
		for _, p := range sub.Paths {
			out = append(out, t.Name+"(/"+policy.EscapeGlob(p.Rel)+")")
		}
		return out
	}
	return []string{t.Name}
}
