package process

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// loginHome makes home a HOME whose login profile (bash's and sh's)
// prints a message on each stream and sets profile, and returns an
// environment naming it.
func loginHome(t *testing.T, home, profile string) []string {
	t.Helper()
	profile = "echo profile message\necho profile error >&2\n" + profile
	for _, name := range []string{".bash_profile", ".profile"} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(profile), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return append(os.Environ(), "HOME="+home)
}

// envValue is the value of name in env and whether it is there.
func envValue(env []string, name string) (string, bool) {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// LoginEnv is the environment the login profile leaves: what it
// exports (a value with a newline included), what it unsets gone, none
// of its output, without the capturing shell's PWD, SHLVL and _.
func TestLoginEnv(t *testing.T) {
	env := loginHome(t, t.TempDir(), "export FROM_PROFILE='two\nlines'\nunset GONE\n")
	env = append(env, "GONE=1", "KEPT=yes")
	for _, shell := range []string{"", "sh"} {
		t.Run("shell="+shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); shell != "" && err != nil {
				t.Skip("needs sh")
			}
			got, err := LoginEnv(t.Context(), Options{Shell: shell, Env: env, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := envValue(got, "FROM_PROFILE"); v != "two\nlines" {
				t.Errorf("FROM_PROFILE %q, want two\\nlines", v)
			}
			if v, _ := envValue(got, "KEPT"); v != "yes" {
				t.Errorf("KEPT %q, want yes", v)
			}
			for _, name := range []string{"GONE", "PWD", "OLDPWD", "SHLVL", "_"} {
				if _, ok := envValue(got, name); ok {
					t.Errorf("%s in the login environment", name)
				}
			}
			if slices.ContainsFunc(got, func(kv string) bool { return strings.Contains(kv, "profile message") }) {
				t.Error("the profile's output in the login environment")
			}
		})
	}
}

// A profile that waits forever is killed at the bound: the capture
// fails, well before the caller's own deadline.
func TestLoginEnvTimeout(t *testing.T) {
	env := loginHome(t, t.TempDir(), "sleep 60\n")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := LoginEnv(ctx, Options{Env: env, Dir: t.TempDir(), Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not finish within 200ms") {
		t.Fatalf("error %v, want a timeout", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the capture outlived its bound")
	}
}

// A profile that fails (exit), or a shell that prints no environment,
// is an error, not an empty environment.
func TestLoginEnvFails(t *testing.T) {
	env := loginHome(t, t.TempDir(), "exit 3\n")
	if _, err := LoginEnv(t.Context(), Options{Env: env, Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "status 3") {
		t.Errorf("error %v, want status 3", err)
	}
	if _, err := parseLoginEnv([]byte("A=1\x00")); err == nil {
		t.Error("no error without the marker")
	}
}

// Confined, the capture reads the profile the sandbox shows: a HOME
// inside the workspace (the sandbox's /tmp is its own).
func TestLoginEnvSandboxed(t *testing.T) {
	runs := bwrapRuns(t)
	o := runs("")
	home := filepath.Join(o.Dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	o.Env = loginHome(t, home, "export FROM_PROFILE=confined\n")
	got, err := LoginEnv(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := envValue(got, "FROM_PROFILE"); v != "confined" {
		t.Errorf("FROM_PROFILE %q, want confined", v)
	}
}
