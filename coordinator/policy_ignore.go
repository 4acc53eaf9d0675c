package coordinator

import (
	"fmt"

	"github.com/toolgate/toolgate/internal/ignore"
)

// ignoreBlock finds the first path of a call that the ignore rules cover,
// judging symlinks by what they point to. It returns the refusal text,
// naming the path and the rule.
func (c *Coordinator) ignoreBlock(m *ignore.Matcher, s *subject) (string, bool) {
	if m.Len() == 0 {
		return "", false
	}
	for _, p := range s.paths {
		r, hit := m.Match(p.rel, p.isDir)
		shown := p.rel
		if !hit {
			real, ok := c.realPath(p.rel)
			if !ok || real == p.rel {
				continue
			}
			ref := c.pathRef(real)
			if r, hit = m.Match(ref.rel, ref.isDir); !hit {
				continue
			}
			shown = fmt.Sprintf("%s (a link to %s)", p.rel, real)
		}
		if s.command != nil {
			return fmt.Sprintf("The command was blocked: it names %s, which %s excludes (%s). "+
				"You must continue without this file, or ask the user to update the ignore file.", shown, r.Source, r), true
		}
		return fmt.Sprintf("Access to %s is blocked by %s (%s). "+
			"You must continue without this file, or ask the user to update the ignore file.", shown, r.Source, r), true
	}
	return "", false
}

// ignoreMatcher is the current ignore rules; a coordinator without a
// workspace ignores nothing.
func (c *Coordinator) ignoreMatcher() *ignore.Matcher {
	if c.ignore == nil {
		return nil
	}
	return c.ignore.Current()
}

// Exclude reports whether the ignore rules (.clineignore and the extra
// ignore files) cover a workspace-relative path. Listing and search tools
// leave such entries out of their output and add IgnoredNote(n). The rules
// are those in force when the call started.
func (c *Call) Exclude(rel string, isDir bool) bool {
	if c.ignored == nil {
		return false
	}
	_, hit := c.ignored.Match(rel, isDir)
	return hit
}

// IgnoredNote is the line listing and search tools append when they left
// n entries out because of the ignore rules; "" when n is 0.
func IgnoredNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "(1 entry was left out because .clineignore excludes it.)"
	}
	return fmt.Sprintf("(%d entries were left out because .clineignore excludes them.)", n)
}
