package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitIn runs git in ws on the host, with no system or user config.
func gitIn(t *testing.T, ws string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestGitStatusMaskedDirectory: with a tracked directory masked, `git
// status` inside the sandbox prints what git on the host prints (no
// "could not open directory", no file listed as deleted or modified): an
// untracked file and a changed file outside it, and a file committed in
// the same second as the index ("racily clean", which git checks by
// content), and an untracked file in the masked directory show alike; the
// masked files' content stays hidden.
func TestGitStatusMaskedDirectory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, way := range ways {
		t.Run(way, func(t *testing.T) {
			ws := filepath.Join(onDisk(t), "ws")
			writeFile(t, ws, "secrets/a.env", "A=GIT-SECRET\n")
			writeFile(t, ws, "secrets/sub/b.env", "B=GIT-SECRET\n")
			writeFile(t, ws, ".gitignore", "*.log\n")
			hourAgo := time.Now().Add(-time.Hour)
			for _, f := range []string{"secrets/a.env", "secrets/sub/b.env", ".gitignore"} {
				if err := os.Chtimes(filepath.Join(ws, f), hourAgo, hourAgo); err != nil {
					t.Fatal(err)
				}
			}
			gitRepo(t, ws)
			// Later than the index: git must compare its content.
			writeFile(t, ws, "racy.txt", "same\n")
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(ws, "racy.txt"), later, later); err != nil {
				t.Fatal(err)
			}
			gitIn(t, ws, "add", "racy.txt")
			gitIn(t, ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "racy")
			writeFile(t, ws, "notes.txt", "untracked\n")
			writeFile(t, ws, "secrets/build.log", "ignored by .gitignore\n")
			writeFile(t, ws, "secrets/new.env", "C=GIT-SECRET\n")
			writeFile(t, ws, "main.go", "package main // changed\n")

			s := newTest(t, Config{Mode: way}, onDisk(t))
			r := Run{Workspace: ws, Hide: []string{filepath.Join(ws, "secrets")}, Warm: way == modeWarm, StartOnThread: way == modeWarm}
			o := runIn(t, s, r, `export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
git status --porcelain 2>&1; echo "--"; cat secrets/a.env secrets/sub/b.env secrets/new.env 2>&1 | tr -d '\0'`)
			inside, rest, _ := strings.Cut(o.out, "--\n")
			host := gitIn(t, ws, "status", "--porcelain")
			if inside != host {
				t.Errorf("git status inside the sandbox:\n%s\non the host:\n%s", inside, host)
			}
			if want := " M main.go\n?? notes.txt\n?? secrets/new.env\n"; host != want {
				t.Errorf("git status on the host = %q, want %q", host, want)
			}
			if strings.Contains(rest, "GIT-SECRET") {
				t.Errorf("a masked file's content leaked:\n%s", rest)
			}
		})
	}
}
