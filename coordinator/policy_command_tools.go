package coordinator

import (
	"sort"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// A rule on commands is one policy whichever tool runs the command: a
// deny of execute_command(rm:*) must hold for the anthropic dialect's
// bash (shell_session) as it does for Claude Code's Bash. So a call that
// runs a command line answers to the names of every tool that runs one:
// the registry's, every dialect tool mapped onto them, and the rule names
// (policy.RuleTools) standing for them.

// commandTools names every tool that runs a command line, sorted. The
// set is derived from the tools themselves, so a dialect added later is
// covered without listing it here.
func (c *Coordinator) commandTools() []string {
	runs := map[string]bool{}
	for _, name := range c.registry.Names() {
		if t, _ := c.registry.lookupTarget(name); t != nil && t.RunsCommands() {
			runs[name] = true
		}
	}
	names := map[string]bool{}
	for n := range runs {
		names[n] = true
	}
	for _, tools := range c.dialects {
		for n, dt := range tools {
			for _, target := range dt.Targets {
				if runs[target] {
					names[n] = true
				}
			}
		}
	}
	for n, aliases := range policy.RuleTools {
		for _, a := range aliases {
			if runs[a] {
				names[n] = true
			}
		}
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// CheckRuleTools refuses rules whose tool part names no tool of any
// dialect (policy.CheckRuleTools).
func (c *Coordinator) CheckRuleTools(p api.Permissions) error {
	return policy.CheckRuleTools(p, c.ruleToolNames())
}

// ruleToolNames lists the names rules may use, sorted.
func (c *Coordinator) ruleToolNames() []string {
	seen := map[string]bool{tool.UseMCPTool: true}
	for _, n := range c.registry.Names() {
		seen[n] = true
	}
	for _, n := range c.registry.ClientSide() {
		seen[n] = true
	}
	for _, t := range c.registry.Tools() {
		seen[t.Name] = true
	}
	for n := range policy.RuleTools {
		seen[n] = true
	}
	for _, tools := range c.dialects {
		for n := range tools {
			seen[n] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// isCommandTool reports whether name is one of commandTools.
func (c *Coordinator) isCommandTool(name string) bool {
	i := sort.SearchStrings(c.commandNames, name)
	return i < len(c.commandNames) && c.commandNames[i] == name
}
