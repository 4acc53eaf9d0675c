package coordinator

import (
	"path/filepath"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// defaultProtected are files whose change runs code or changes policy
// behind the user's back: git hooks and config (git runs what they name,
// even for read-only subcommands), editor tasks and settings, MCP server
// settings, Cline hooks and the ignore file itself. Writes to them always
// ask, whatever the rules say.
var defaultProtected = []string{
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

// protectedFiles matches paths that writes may touch only with approval.
type protectedFiles struct{ m *ignore.Matcher }

// newProtected builds the protected set from the defaults, the extra
// ignore files and the configured patterns. Absolute paths (the server's
// own config file) are kept when they lie in the workspace.
func newProtected(ws *tool.Workspace, ignoreFiles, extra []string) protectedFiles {
	lines := append([]string{}, defaultProtected...)
	for _, f := range ignoreFiles {
		lines = append(lines, "/"+escapeGlob(filepath.ToSlash(filepath.Clean(f))))
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
			p = "/" + escapeGlob(rel)
		}
		lines = append(lines, p)
	}
	var data []byte
	for _, l := range lines {
		data = append(append(data, l...), '\n')
	}
	return protectedFiles{ignore.NewMatcher(ignore.ParseRules("protected files", "", data))}
}

// touched returns the first protected path among paths.
func (p protectedFiles) touched(paths []pathRef) (string, bool) {
	for _, r := range paths {
		if _, hit := p.m.MatchLazy(r.rel, r.isDir); hit {
			return r.rel, true
		}
	}
	return "", false
}
