package coordinator

import (
	"fmt"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// ignoreBlock finds the first path of a call that the ignore rules cover,
// judging symlinks by what they point to. It returns the refusal text:
// for .clineignore Cline's words, naming the path; for other ignore files
// toolgate's, naming the path and the rule.
func (c *Coordinator) ignoreBlock(m *ignore.Matcher, s *subject) ([]string, bool) {
	if m.Len() == 0 {
		return nil, false
	}
	for _, p := range s.paths {
		isDir := p.isDir
		if p.walked {
			isDir = func() bool { return false }
		}
		r, hit := m.MatchLazy(p.rel, isDir)
		shown := p.rel
		if !hit {
			real, ok := c.realPath(p.rel)
			if !ok || real == p.rel {
				continue
			}
			ref := c.pathRef(real)
			if r, hit = m.MatchLazy(ref.rel, ref.isDir); !hit {
				continue
			}
			shown = fmt.Sprintf("%s (a link to %s)", p.rel, real)
		}
		if r.Source == ".clineignore" {
			if p.given != "" && shown == p.rel {
				shown = p.given
			}
			// The default dialect's own words (its ignore file), alone
			// as its client answers: the rule is in the audit log's
			// decision.
			texts := c.texts("")
			return []string{texts.ToolError(texts.IgnoredPath(shown))}, true
		}
		by, fix := fmt.Sprintf("%s (%s)", r.Source, r), "update the ignore file"
		if name, permission := tool.DescribeSource(r.Source); permission {
			by, fix = name, "change the permission rules"
		}
		if s.command != nil {
			return []string{fmt.Sprintf("The command was blocked: it names %s, excluded by %s. "+
				"You must continue without this file, or ask the user to %s.", shown, by, fix)}, true
		}
		return []string{fmt.Sprintf("Access to %s is blocked by %s. "+
			"You must continue without this file, or ask the user to %s.", shown, by, fix)}, true
	}
	return nil, false
}

// ignoreMatcher is the current ignore rules; a coordinator without a
// workspace ignores nothing, one whose ignore files could not be loaded
// excludes everything (startIgnore).
func (c *Coordinator) ignoreMatcher() *ignore.Matcher {
	if c.ignore == nil {
		return c.ignoreFixed
	}
	return c.ignore.Current()
}
