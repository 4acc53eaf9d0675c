package process

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A named shell runs the line: sh does not know bash's [[, and $0 is the
// name it was given.
func TestShellNamed(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	line := `echo "$0"; [ -n "$BASH_VERSION" ] && echo bash || echo not-bash`
	for _, tc := range []struct{ shell, want string }{
		{"", "bash\nbash\n"},
		{"bash", "bash\nbash\n"},
		{"sh", "sh\nnot-bash\n"},
	} {
		t.Run(tc.shell, func(t *testing.T) {
			res, out := run(t, t.Context(), Options{Command: line, Shell: tc.shell})
			if res.ExitCode != 0 || text(t, out) != tc.want {
				t.Errorf("exit %d output %q, want %q", res.ExitCode, text(t, out), tc.want)
			}
		})
	}
}

// loginHome makes home a HOME whose login profile exports a variable,
// defines a function and prints a message, and returns an environment
// naming it.
func loginHome(t *testing.T, home string) []string {
	t.Helper()
	profile := "export FROM_PROFILE=yes\necho profile message\necho profile error >&2\nprofilefn() { :; }\n"
	for _, name := range []string{".bash_profile", ".profile"} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(profile), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return append(os.Environ(), "HOME="+home)
}

// With Login the line gets what the login profile exports, none of its
// output, and runs in a plain shell (not a login shell, no functions of
// the profile) whose input, output and exit status are the run's; the
// profile reads no input. Without it the profile is not read.
func TestShellLogin(t *testing.T) {
	env := loginHome(t, t.TempDir())
	line := `echo "$0 ${FROM_PROFILE:-unset}"; shopt -q login_shell && echo login || echo plain; type profilefn >/dev/null 2>&1 && echo fn; read -r x; echo "read $x"; echo err >&2; exit 5`
	for _, tc := range []struct {
		name  string
		login bool
		want  string
	}{
		{"login", true, "bash yes\nplain\nread input\n"},
		{"plain", false, "bash unset\nplain\nread input\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChunks()
			res, _ := run(t, t.Context(), Options{Command: line, Login: tc.login, Env: env, Stdin: strings.NewReader("input\n"), OnChunk: c.add})
			if res.ExitCode != 5 || c.joined("stdout") != tc.want || c.joined("stderr") != "err\n" {
				t.Errorf("exit %d stdout %q stderr %q, want 5 %q err", res.ExitCode, c.joined("stdout"), c.joined("stderr"), tc.want)
			}
		})
	}
	t.Run("sh", func(t *testing.T) {
		if _, err := exec.LookPath("sh"); err != nil {
			t.Skip("needs sh")
		}
		res, out := run(t, t.Context(), Options{Command: `echo "$0 $FROM_PROFILE"`, Shell: "sh", Login: true, Env: env})
		if res.ExitCode != 0 || text(t, out) != "sh yes\n" {
			t.Errorf("exit %d output %q, want sh yes", res.ExitCode, text(t, out))
		}
	})
}

// Under a terminal the login line still has the terminal as its input
// and output.
func TestShellLoginTerminal(t *testing.T) {
	res, out := run(t, t.Context(), Options{Command: `test -t 0 && test -t 1 && echo "tty $FROM_PROFILE"`, Login: true, Env: loginHome(t, t.TempDir()), Terminal: NewTerminal(0, 0)})
	if res.ExitCode != 0 || strings.TrimSpace(text(t, out)) != "tty yes" {
		t.Errorf("exit %d output %q, want tty yes", res.ExitCode, text(t, out))
	}
}

// A shell that does not exist is a start failure, as any missing program.
func TestShellMissing(t *testing.T) {
	_, err := Run(t.Context(), Options{Command: "true", Shell: "no-such-shell-xyz", Output: NewOutput(OutputLimits{Dir: t.TempDir()})})
	if err == nil {
		t.Fatal("no error for a missing shell")
	}
}

// Confined, a named shell and a login line run as they do unconfined:
// the sandbox's helper starts the shell by name and the login script
// starts it again inside.
func TestShellSandboxed(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	runs := bwrapRuns(t)
	o := runs(`echo "$0 $FROM_PROFILE"`)
	// The home inside the workspace: the sandbox's /tmp is its own.
	o.Shell, o.Login, o.Env = "sh", true, loginHome(t, o.Dir)
	res, out := run(t, t.Context(), o)
	if res.ExitCode != 0 || text(t, out) != "sh yes\n" {
		t.Errorf("exit %d output %q, want sh yes", res.ExitCode, text(t, out))
	}
}
