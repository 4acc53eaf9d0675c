package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// gitRepo makes a git repository in ws with secret.env and main.go
// committed, their times an hour back so that no entry is "racily clean"
// (changed in the second the index was written, which git checks by
// content whatever the stat data says).
func gitRepo(t *testing.T, ws string) {
	t.Helper()
	writeFile(t, ws, "secret.env", "TOKEN=GIT-SECRET\n")
	writeFile(t, ws, "main.go", "package main\n")
	hourAgo := time.Now().Add(-time.Hour)
	for _, f := range []string{"secret.env", "main.go"} {
		if err := os.Chtimes(filepath.Join(ws, f), hourAgo, hourAgo); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}, {"status", "--porcelain"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestGitStatusClean: a tracked workspace file the ignore rules mask is
// not listed as modified by git inside the sandbox, and its content stays
// hidden.
func TestGitStatusClean(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, way := range ways {
		t.Run(way, func(t *testing.T) {
			ws := filepath.Join(onDisk(t), "ws")
			gitRepo(t, ws)
			s := newTest(t, Config{Mode: way}, onDisk(t))
			r := Run{Workspace: ws, Hide: []string{filepath.Join(ws, "secret.env")}, Warm: way == modeWarm, StartOnThread: way == modeWarm}
			o := runIn(t, s, r, `export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
echo "status:[$(git status --porcelain 2>&1)]"; git diff --quiet && echo diff-clean; cat secret.env; echo`)
			if !strings.Contains(o.out, "status:[]") || !strings.Contains(o.out, "diff-clean") {
				t.Errorf("git inside the sandbox sees changes:\n%s", o.out)
			}
			if strings.Contains(o.out, "GIT-SECRET") {
				t.Errorf("the masked file's content leaked:\n%s", o.out)
			}
		})
	}
}

func TestGitStatEnvKeepsGivenConfig(t *testing.T) {
	env := gitStatEnv([]string{"PATH=/bin", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=me"})
	want := []string{"PATH=/bin", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=me",
		"GIT_CONFIG_KEY_1=core.checkStat", "GIT_CONFIG_VALUE_1=minimal", "GIT_CONFIG_KEY_2=core.trustCtime", "GIT_CONFIG_VALUE_2=false",
		"GIT_CONFIG_COUNT=3"}
	if !slices.Equal(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
}
