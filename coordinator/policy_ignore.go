package coordinator

import (
	"fmt"
	"syscall"

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
			if real, ok := c.realPath(p.rel); ok && real != p.rel {
				ref := c.pathRef(real)
				if r, hit = m.MatchLazy(ref.rel, ref.isDir); hit {
					shown = fmt.Sprintf("%s (a link to %s)", p.rel, real)
				}
			}
			if !hit {
				if r, shown, hit = c.hardLinkIgnored(m, p.rel); !hit {
					continue
				}
			}
		}
		if r.Source == ".clineignore" {
			if p.given != "" && shown == p.rel {
				shown = p.given
			}
			// Cline's own words (ReadFileToolHandler and the other path
			// tools; ExecuteCommandToolHandler for a command), alone as
			// Cline answers: the rule is in the audit log's decision.
			return []string{ClineToolError(clineIgnoreError(shown))}, true
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

// hardLinkIgnored finds the rule covering another name of the file at
// rel when it is a regular file with several names (tool/hardlinks.go):
// `cat notes.txt`, notes.txt a hard link to .env, is blocked as
// `cat .env` is.
func (c *Coordinator) hardLinkIgnored(m *ignore.Matcher, rel string) (ignore.Rule, string, bool) {
	if c.workspace == nil {
		return ignore.Rule{}, "", false
	}
	info, err := c.workspace.Root.Stat(rel)
	if err != nil || !info.Mode().IsRegular() {
		return ignore.Rule{}, "", false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink <= 1 {
		return ignore.Rule{}, "", false
	}
	other, _ := c.workspace.LinkedIgnored(st, m)
	if other == "" {
		return ignore.Rule{}, "", false
	}
	r, hit := m.Match(other, false)
	return r, fmt.Sprintf("%s (a hard link to %s)", rel, other), hit
}
