package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// An approved command must not weaken what is checked after it: rewrite
// the ignore rules, plant a git hook or a git config entry that runs at the
// user's next git command, or a shell start-up file that runs at the next
// shell. These workspace paths are read-only inside the sandbox unless
// sandbox.allow_write names them (the set Claude Code's sandbox runtime
// denies writes to, with toolgate's own ignore file and Cline's hooks).
var workspaceProtected = []string{
	".clineignore",
	".gitconfig", ".gitmodules",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout",
	".ripgreprc", ".mcp.json",
	".vscode", ".idea", ".claude/commands", ".claude/agents", ".clinerules/hooks",
}

// WorkspaceProtected lists the workspace paths (relative, slash-separated)
// that are read-only inside the sandbox unless sandbox.allow_write names
// them, beside each repository's .git/config and .git/hooks.
func WorkspaceProtected() []string { return slices.Clone(workspaceProtected) }

// readOnly lists the existing real paths to make read-only in the
// writable set: the workspace's protected paths, its repositories' (see
// gitProtected) and the run's own list, but those sandbox.allow_write
// names, those masked already and those outside what is writable anyway.
func (s *Sandbox) readOnly(ws string, writable, hidden, extra []string) []string {
	var cand []string
	for _, p := range workspaceProtected {
		cand = append(cand, filepath.Join(ws, p))
	}
	cand = append(cand, gitProtected(ws)...) // makes missing hooks directories
	cand = append(cand, extra...)
	allowed := map[string]bool{}
	for _, a := range s.cfg.AllowWrite {
		if real := resolve(s.protectedPath(ws, a)); real != "" {
			allowed[real] = true
		}
	}
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
	if filepath.IsAbs(p) || strings.HasPrefix(p, "~/") {
		return expandHome(p, s.home)
	}
	return filepath.Join(ws, p)
}

// nestedRepoDepth is how deep below the workspace a nested repository is
// looked for (Claude Code's sandbox runtime looks 3 levels deep for a
// .git), and maxRepoScan bounds the directories looked at.
const (
	nestedRepoDepth = 2
	maxRepoScan     = 4096
)

// gitProtected are the paths through which a repository in the workspace
// or nested in it runs code at the user's next git command: its hooks
// directory (made empty first where missing, so that none can be made
// inside) and config files, or, where .git is a file (a worktree's or a
// submodule's), that pointer to the git directory itself.
func gitProtected(ws string) []string {
	var out []string
	for _, repo := range repoDirs(ws) {
		git := filepath.Join(repo, ".git")
		st, err := os.Lstat(git)
		switch {
		case err != nil:
		case st.Mode().IsRegular():
			out = append(out, git)
		case st.IsDir():
			for _, dir := range append([]string{git}, submoduleGitDirs(git)...) {
				_ = os.Mkdir(filepath.Join(dir, "hooks"), 0o755)
				out = append(out, filepath.Join(dir, "hooks"), filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree"))
			}
		}
	}
	return out
}

// submoduleGitDirs are the git directories of a repository's submodules
// (.git/modules/<name>, nested ones below their modules/ again): a hook
// planted there runs at a git command in the submodule.
func submoduleGitDirs(git string) []string {
	var out []string
	level := []string{filepath.Join(git, "modules")}
	for scanned := 0; len(level) > 0 && scanned < maxRepoScan; {
		var next []string
		for _, d := range level {
			scanned++
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if !e.IsDir() {
					continue
				}
				sub := filepath.Join(d, e.Name())
				if _, err := os.Lstat(filepath.Join(sub, "HEAD")); err == nil {
					out = append(out, sub) // a git directory: its own modules/ next
					next = append(next, filepath.Join(sub, "modules"))
				} else {
					next = append(next, sub) // a submodule named a/b
				}
			}
		}
		level = next
	}
	return out
}

// repoDirs are the workspace and its directories down to nestedRepoDepth
// levels that hold a .git entry; links are not followed.
func repoDirs(ws string) []string {
	var out []string
	level, scanned := []string{ws}, 0
	for depth := 0; depth <= nestedRepoDepth && len(level) > 0; depth++ {
		var next []string
		for _, d := range level {
			if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
				out = append(out, d)
			}
			if depth == nestedRepoDepth || scanned >= maxRepoScan {
				continue
			}
			scanned++
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if e.IsDir() && e.Name() != ".git" {
					next = append(next, filepath.Join(d, e.Name()))
				}
			}
		}
		level = next
	}
	return out
}
