package process

import (
	"os/exec"
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

// A shell that does not exist is a start failure, as any missing program.
func TestShellMissing(t *testing.T) {
	_, err := Run(t.Context(), Options{Command: "true", Shell: "no-such-shell-xyz", Output: NewOutput(OutputLimits{Dir: t.TempDir()})})
	if err == nil {
		t.Fatal("no error for a missing shell")
	}
}

// Confined, a named shell runs as it does unconfined: the sandbox's
// helper starts the shell by name.
func TestShellSandboxed(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	runs := bwrapRuns(t)
	o := runs(`echo "$0"`)
	o.Shell = "sh"
	res, out := run(t, t.Context(), o)
	if res.ExitCode != 0 || text(t, out) != "sh\n" {
		t.Errorf("exit %d output %q, want sh", res.ExitCode, text(t, out))
	}
}
