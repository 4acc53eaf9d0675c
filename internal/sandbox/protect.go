package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// An approved command must not weaken what is checked after it: rewrite
// the ignore rules, plant a git hook or a git config entry that runs at the
// user's next git command, or a shell start-up file that runs at the next
// shell. These workspace paths are read-only inside the sandbox unless
// sandbox.allow_write names them (the set Claude Code's sandbox runtime
// denies writes to, with toolgate's own ignore file and Cline's hooks).
var workspaceProtected = []string{
	".clineignore",
	".git/hooks", ".git/config", ".git/config.worktree",
	".gitconfig", ".gitmodules",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout",
	".ripgreprc", ".mcp.json",
	".vscode", ".idea", ".claude/commands", ".claude/agents", ".clinerules/hooks",
}

// readOnly lists the existing real paths to make read-only in the
// writable set: the workspace's protected paths and the run's own list,
// but those sandbox.allow_write names, those masked already and those
// outside what is writable anyway. A repository without a hooks
// directory gets an empty one first, so that one cannot be made inside.
func (s *Sandbox) readOnly(ws string, writable, hidden, extra []string) []string {
	if st, err := os.Lstat(filepath.Join(ws, ".git")); err == nil && st.IsDir() {
		_ = os.Mkdir(filepath.Join(ws, ".git", "hooks"), 0o755)
	}
	allowed := map[string]bool{}
	for _, a := range s.cfg.AllowWrite {
		if real := resolve(s.protectedPath(ws, a)); real != "" {
			allowed[real] = true
		}
	}
	var cand []string
	for _, p := range workspaceProtected {
		cand = append(cand, filepath.Join(ws, p))
	}
	cand = append(cand, extra...)
	seen := map[string]bool{}
	var out []string
	for _, c := range cand {
		real := resolve(c)
		if real == "" || seen[real] || allowed[real] || slices.ContainsFunc(hidden, func(h string) bool { return within(real, h) }) ||
			!slices.ContainsFunc(writable, func(w string) bool { return within(real, w) && real != w }) {
			continue
		}
		seen[real] = true
		out = append(out, real)
	}
	return out
}

// protectedPath is an allow_write entry as a path: "~/" under home,
// absolute as it is, else relative to the workspace.
func (s *Sandbox) protectedPath(ws, p string) string {
	if filepath.IsAbs(p) || len(p) > 1 && p[:2] == "~/" {
		return expandHome(p, s.home)
	}
	return filepath.Join(ws, p)
}
