package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// protectedWorkspace makes a workspace holding what an approved command
// would rewrite to weaken later checks: the ignore file, a repository's
// config (no hooks directory yet), shell start-up files and toolgate's
// config file. It returns the workspace and each file with its content.
func protectedWorkspace(t *testing.T) (string, map[string]string) {
	t.Helper()
	ws := filepath.Join(onDisk(t), "ws")
	files := map[string]string{
		".clineignore":             ".env\n",
		".git/config":              "[core]\n\tbare = false\n",
		".git/HEAD":                "ref: refs/heads/main\n",
		".bashrc":                  "# workspace bashrc\n",
		".profile":                 "# workspace profile\n",
		".vscode/tasks.json":       "{}\n",
		"toolgate.json":            "{\"permissions\": {}}\n",
		"lib/vendored/.git/config": "[core]\n\tbare = false\n",
		"wt/.git":                  "gitdir: ../.git/worktrees/wt\n",
		".git/modules/sub/HEAD":    "ref: refs/heads/main\n",
		".git/modules/sub/config":  "[core]\n\tworktree = ../../../sub\n",
	}
	for name, content := range files {
		writeFile(t, ws, name, content)
	}
	if err := os.Mkdir(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws, files
}

// weakenScript is what the hostile command tries, each step on its own:
// append, truncate, replace by rename, remove, plant a hook (in the hooks
// directory, and in a fresh repository after moving the old one away).
const weakenScript = `for f in .clineignore .git/config .bashrc .profile .vscode/tasks.json toolgate.json lib/vendored/.git/config wt/.git .git/modules/sub/config; do
  echo PWNED >> $f; : > $f; echo PWNED > src/new && mv -f src/new $f; rm -f $f; done
for h in .git/hooks lib/vendored/.git/hooks .git/modules/sub/hooks; do mkdir -p $h; printf '#!/bin/sh\necho PWNED\n' > $h/pre-commit; done
mv .git .git-moved && mkdir -p .git/hooks && echo PWNED > .git/hooks/pre-commit
mv .vscode .vscode-moved
echo fine > src/ok; cat src/ok; true`

// TestApprovedCommandCannotWeakenLaterChecks is the attack of an approved
// command that rewrites .clineignore (later reads of the ignored files
// then pass), plants a git hook or config entry that runs at the user's
// next git command on the host, or edits a shell start-up file: every
// such file must be unchanged and no hook must exist afterwards, while
// the rest of the workspace stays writable.
func TestApprovedCommandCannotWeakenLaterChecks(t *testing.T) {
	for _, mode := range ways {
		t.Run(mode, func(t *testing.T) {
			ws, files := protectedWorkspace(t)
			s := newTest(t, Config{Mode: mode}, "")
			o := runIn(t, s, Run{Workspace: ws, ReadOnly: []string{filepath.Join(ws, "toolgate.json")}}, weakenScript)
			for name, was := range files {
				if b, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(b) != was {
					t.Errorf("%s changed: %q (%v)", name, b, err)
				}
			}
			for _, hook := range []string{".git/hooks/pre-commit", "lib/vendored/.git/hooks/pre-commit", ".git/modules/sub/hooks/pre-commit", ".git-moved", ".vscode-moved"} {
				if _, err := os.Lstat(filepath.Join(ws, hook)); err == nil {
					t.Errorf("%s was made", hook)
				}
			}
			if !contains(o.out, "fine") {
				t.Errorf("the rest of the workspace is not writable:\n%s", o.out)
			}
			if t.Failed() {
				t.Logf("output:\n%s", o.out)
			}
		})
	}
}

// TestAllowWriteLetsAProtectedPathBeWritten checks sandbox.allow_write:
// the hooks directory it names can be written, the rest stays protected.
func TestAllowWriteLetsAProtectedPathBeWritten(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			ws, files := protectedWorkspace(t)
			s := newTest(t, Config{Mode: mode, AllowWrite: []string{".git/hooks", ".git/config"}}, "")
			o := runIn(t, s, Run{Workspace: ws}, `echo HOOK > .git/hooks/pre-commit; echo CFG >> .git/config; echo PWNED >> .clineignore; true`)
			if b, err := os.ReadFile(filepath.Join(ws, ".git/hooks/pre-commit")); err != nil || string(b) != "HOOK\n" {
				t.Errorf("an allowed hook was not written: %q (%v)\n%s", b, err, o.out)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, ".git/config")); string(b) != files[".git/config"]+"CFG\n" {
				t.Errorf("an allowed config was not written: %q\n%s", b, o.out)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, ".clineignore")); string(b) != files[".clineignore"] {
				t.Errorf(".clineignore changed though allow_write does not name it: %q", b)
			}
		})
	}
}
