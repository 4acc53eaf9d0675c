package handlers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// shell names the shell the line runs in; bash by default.
func TestExecuteCommandShell(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	e := newCommandEnv(t, tool.CommandConfig{})
	line := `echo "$0"; [ -n "$BASH_VERSION" ] && echo bash || echo not-bash`
	for _, tc := range []struct {
		name string
		in   map[string]any
		want string
	}{
		{"default", map[string]any{"command": line}, "bash\nbash"},
		{"sh", map[string]any{"command": line, "shell": "sh"}, "sh\nnot-bash"},
		{"sh background", map[string]any{"command": line, "shell": "sh", "background": true, "yield_ms": 10000}, "sh\nnot-bash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, rec := e.exec(t, tc.in)
			if rec.Status != api.StatusSucceeded || !strings.Contains(cmdText(res), "Output:\n"+tc.want) {
				t.Errorf("status %s result %q, want output %q", rec.Status, cmdText(res), tc.want)
			}
		})
	}
}

// A shell that is not a POSIX shell is invalid input; one that is not
// installed is unavailable, and nothing runs.
func TestExecuteCommandShellRefused(t *testing.T) {
	e := newCommandEnv(t, tool.CommandConfig{})
	res, rec := e.exec(t, map[string]any{"command": "touch ran", "shell": "python3"})
	if !res.IsError || rec.Error == nil || rec.Error.Code != api.ToolCodeInvalid {
		t.Errorf("python3: error %+v, want %s", rec.Error, api.ToolCodeInvalid)
	}
	t.Setenv("PATH", t.TempDir()) // no shell at all
	for _, background := range []bool{false, true} {
		res, rec = e.exec(t, map[string]any{"command": "touch ran", "shell": "sh", "background": background})
		if !res.IsError || rec.Error == nil || rec.Error.Code != api.ToolCodeUnavailable || !strings.Contains(cmdText(res), "The shell sh was not found") {
			t.Errorf("background %v: error %+v result %q, want %s", background, rec.Error, cmdText(res), api.ToolCodeUnavailable)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "ran")); err == nil {
		t.Error("the command ran")
	}
}

// login gives the command what the login profile exports, without the
// profile's output and outside a login shell; without it the profile is
// not read.
func TestExecuteCommandLogin(t *testing.T) {
	var env []string
	e := newCommandEnv(t, tool.CommandConfig{Environ: func() []string { return env }})
	// The home inside the workspace: a sandboxed command's /tmp is its own.
	home := filepath.Join(e.dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".bash_profile"), []byte("export FROM_PROFILE=yes\necho profile message\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(), "HOME="+home)
	line := `echo "profile=${FROM_PROFILE:-unset}"; shopt login_shell`
	for _, tc := range []struct {
		name string
		in   map[string]any
		want string
	}{
		{"login", map[string]any{"command": line, "login": true}, "profile=yes\nlogin_shell    \toff\n"},
		{"login background", map[string]any{"command": line, "login": true, "background": true, "yield_ms": 10000}, "profile=yes\nlogin_shell    \toff\n"},
		{"plain", map[string]any{"command": line}, "profile=unset\nlogin_shell    \toff\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := e.exec(t, tc.in)
			got := cmdText(res)
			if !strings.Contains(got, "Output:\n"+tc.want) || strings.Contains(got, "profile message") {
				t.Errorf("result %q, want output %q", got, tc.want)
			}
		})
	}
}
