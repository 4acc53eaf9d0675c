package policy

import (
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// A path a deny rule keeps from reading (Claude Code's Read(./secret/**),
// Cline's read_file(...)) is kept from every tool, as Claude Code keeps
// it: the rule joins the ignore rules a call carries, so searches and
// listings (Grep, Glob, LS, search_files) leave the path out, a command's
// sandbox masks it, and a handler that opens a file through a symlink
// alias is refused by the check of where the file really is
// (tool.Call.CheckOpened). The call's own paths are judged by the
// permission decision as before, with its words.

// readingTools are the rule tool names that stand for reading files.
var readingTools = map[string]bool{"Read": true, "read_file": true, "*": true}

// WithReadDenials returns m with the workspace path patterns of the deny
// rules on reading added, m itself when there are none. A rule anchored
// outside the workspace (//path, ~/path) cannot name a workspace path and
// is left out.
func WithReadDenials(m *ignore.Matcher, layers ...[]*Rule) *ignore.Matcher {
	var rules []ignore.Rule
	for _, layer := range layers {
		for _, r := range layer {
			if pattern, ok := readDenial(r); ok {
				rules = append(rules, ignore.ParseRules(tool.DenyRuleSource+r.String(), "", []byte(pattern))...)
			}
		}
	}
	if len(rules) == 0 {
		return m
	}
	return m.WithRules(rules)
}

// readDenial is a rule's workspace path pattern when it denies reading.
func readDenial(r *Rule) (string, bool) {
	if r.list != listDeny || r.globs == nil || r.absolute || !readingTools[r.tool] {
		return "", false
	}
	pattern, _ := pathPattern(r.content)
	return pattern, true
}

// ReadDenialPatterns are the workspace path patterns of the rules that
// deny reading.
func ReadDenialPatterns(layers ...[]*Rule) []string {
	var out []string
	for _, layer := range layers {
		for _, r := range layer {
			if pattern, ok := readDenial(r); ok {
				out = append(out, pattern)
			}
		}
	}
	return out
}
