package policy

import (
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// DefaultProtected are files whose change runs code or changes policy
// behind the user's back: git hooks and config (git runs what they name,
// even for read-only subcommands), editor tasks and settings, MCP server
// settings, Cline hooks and the ignore file itself. Writes to them always
// ask, whatever the rules say.
var DefaultProtected = []string{
	".git",
	".vscode/tasks.json",
	".vscode/settings.json",
	".vscode/mcp.json",
	".cursor/mcp.json",
	"/.mcp.json",
	"cline_mcp_settings.json",
	".clinerules/hooks/",
	"/" + ignore.ClineignoreFile,
}

// ProtectedFiles matches paths that writes may touch only with approval.
type ProtectedFiles struct{ m *ignore.Matcher }

// NewProtected builds the protected set from the defaults, the extra
// ignore files and the configured patterns. Absolute paths (the server's
// own config file) are kept when they lie in the workspace.
func NewProtected(ws *tool.Workspace, ignoreFiles, extra []string) ProtectedFiles {
	lines := append([]string{}, DefaultProtected...)
	for _, f := range ignoreFiles {
		lines = append(lines, "/"+EscapeGlob(filepath.ToSlash(filepath.Clean(f))))
	}
	for _, p := range extra {
		if filepath.IsAbs(p) {
			if ws == nil {
				continue
			}
			rel, err := ws.Rel(p)
			if err != nil || rel == "." {
				continue
			}
			p = "/" + EscapeGlob(rel)
		}
		lines = append(lines, p)
	}
	var data []byte
	for _, l := range lines {
		data = append(append(data, l...), '\n')
	}
	return ProtectedFiles{ignore.NewMatcher(ignore.ParseRules("protected files", "", data))}
}

// touched returns the first protected path among paths.
func (p ProtectedFiles) touched(paths []PathRef) (string, bool) {
	for _, r := range paths {
		if _, hit := p.m.MatchLazy(r.Rel, r.IsDir); hit {
			return r.Rel, true
		}
	}
	return "", false
}

// EscapeGlob escapes a path so that, as a gitignore pattern, it matches
// only itself.
func EscapeGlob(p string) string {
	var b strings.Builder
	for i, r := range p {
		if strings.ContainsRune(`*?[\`, r) || r == ' ' && i == len(p)-1 {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
