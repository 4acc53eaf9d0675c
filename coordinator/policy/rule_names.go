package policy

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// A permission rule whose tool part names no tool would be accepted and
// then never match: a deny rule with a typo ("Bsh(rm:*)") silently denies
// nothing. So rules are checked against every name a rule may use: the
// registry's tools (those toolgate runs and those the client runs), every
// dialect's tools, Claude Code's rule names, MCP tools and subagents.

// CheckRuleTools refuses rules whose tool part names no tool of any
// dialect, naming each such rule and the nearest names. Glob patterns
// must match at least one name. The error is a validation error with
// one field per bad rule ("permissions.deny[0]"). known lists, sorted,
// every name a rule may use.
func CheckRuleTools(p api.Permissions, known []string) error {
	fields := map[string]string{}
	var unknown []string
	for _, l := range []struct {
		name  string
		rules []string
	}{{listDeny, p.Deny}, {listAsk, p.Ask}, {listAllow, p.Allow}} {
		for i, text := range l.rules {
			r, err := parseRule(text, l.name, "")
			if err != nil || knownRuleTool(r.tool, known) {
				continue // syntax errors are ValidatePermissions' to report
			}
			msg := fmt.Sprintf("rule %q: no tool is named %s in any dialect", r.Text, r.tool)
			if near := nearNames(r.tool, known); len(near) > 0 {
				msg += " (did you mean " + strings.Join(near, ", ") + "?)"
			}
			fields[fmt.Sprintf("permissions.%s[%d]", l.name, i)] = msg
			unknown = append(unknown, r.Text)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return &api.Error{Code: api.CodeValidation, Message: "permission rule names an unknown tool: " + strings.Join(unknown, ", "), Fields: fields}
}

// knownRuleTool reports whether a rule's tool part names something: a
// known name, a pattern matching one, an MCP tool (servers may connect
// later) or a subagent (agent files may appear later).
func knownRuleTool(name string, known []string) bool {
	if strings.HasPrefix(name, tool.MCPPrefix) || strings.HasPrefix(name, tool.SubagentPrefix) {
		return true
	}
	if !strings.Contains(name, "*") {
		_, found := slices.BinarySearch(known, name)
		return found
	}
	return slices.ContainsFunc(known, func(n string) bool { return glob(name, n) })
}

// nearNames are up to three known names close to a misspelt one: the same
// name in another case, or at most two edits away (one for short names).
func nearNames(name string, known []string) []string {
	type cand struct {
		name string
		dist int
	}
	limit := 2
	if len(name) <= 4 {
		limit = 1
	}
	var cands []cand
	lower := strings.ToLower(name)
	for _, k := range known {
		d := editDistance(lower, strings.ToLower(k))
		if d <= limit {
			cands = append(cands, cand{k, d})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].dist < cands[j].dist })
	var out []string
	for _, c := range cands {
		if len(out) == 3 {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between two strings, by byte:
// tool names are ASCII.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
