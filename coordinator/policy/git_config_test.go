package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRepoProgramKey: every key of the repository's own configuration
// that makes git start a program is found, set directly or through an
// include; booleans and harmless keys are not, and neither is the user's
// global configuration.
func TestRepoProgramKey(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\tpager = delta\n[diff]\n\texternal = difft\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for _, tc := range []struct{ key, value, want string }{
		{"core.fsmonitor", "./hook.sh", "core.fsmonitor"},
		{"core.fsmonitor", "true", ""},
		{"core.pager", "less", "core.pager"},
		{"core.sshCommand", "ssh -i x", "core.sshcommand"},
		{"core.hooksPath", "hooks", "core.hookspath"},
		{"core.worktree", "/", "core.worktree"},
		{"diff.external", "x", "diff.external"},
		{"diff.pdf.textconv", "x", "diff.pdf.textconv"},
		{"filter.lfs.smudge", "x", "filter.lfs.smudge"},
		{"filter.lfs.process", "x", "filter.lfs.process"},
		{"pager.log", "x", "pager.log"},
		{"pager.log", "false", ""},
		{"gpg.program", "x", "gpg.program"},
		{"credential.helper", "x", "credential.helper"},
		{"user.name", "x", ""},
		{"alias.st", "!x", ""},
	} {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			dir := t.TempDir()
			git(dir, "init", "-q")
			git(dir, "config", tc.key, tc.value)
			got, err := repoProgramKey(dir)
			if err != nil || got != tc.want {
				t.Errorf("got %q %v, want %q", got, err, tc.want)
			}
		})
	}
	t.Run("through an include", func(t *testing.T) {
		dir := t.TempDir()
		git(dir, "init", "-q")
		if err := os.WriteFile(filepath.Join(dir, "inc.cfg"), []byte("[diff \"x\"]\n\ttextconv = ./tc.sh\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git(dir, "config", "include.path", "../inc.cfg")
		if got, err := repoProgramKey(dir); err != nil || got != "diff.x.textconv" {
			t.Errorf("got %q %v, want diff.x.textconv", got, err)
		}
	})
	t.Run("no repository", func(t *testing.T) {
		if got, err := repoProgramKey(t.TempDir()); err != nil || got != "" {
			t.Errorf("got %q %v, want nothing", got, err)
		}
	})
}
