package coordinator

import (
	"fmt"
	"syscall"

	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// ignoreBlock finds the first path of a call that the ignore rules cover,
// judging symlinks by what they point to. It returns the refusal text:
// for .clineignore Cline's words, naming the path; for other ignore files
// toolgate's, naming the path and the rule.
func (c *Coordinator) ignoreBlock(m *ignore.Matcher, s *policy.Subject) ([]string, bool) {
	if m.Len() == 0 {
		return nil, false
	}
	for _, p := range s.Paths {
		isDir := p.IsDir
		if p.Walked {
			isDir = func() bool { return false }
		}
		r, hit := m.MatchLazy(p.Rel, isDir)
		shown := p.Rel
		if !hit {
			if real, ok := c.policy.RealPath(p.Rel); ok && real != p.Rel {
				ref := c.policy.Ref(real)
				if r, hit = m.MatchLazy(ref.Rel, ref.IsDir); hit {
					shown = fmt.Sprintf("%s (a link to %s)", p.Rel, real)
				}
			}
			if !hit {
				if r, shown, hit = c.hardLinkIgnored(m, p.Rel); !hit {
					continue
				}
			}
		}
		if r.Source == ".clineignore" {
			if p.Given != "" && shown == p.Rel {
				shown = p.Given
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
		if s.Command != nil {
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
