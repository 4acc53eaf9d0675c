package codex

import (
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// TestExecCommandShell: exec_command's shell and login choose
// execute_command's, as the pinned Codex CLI runs them (measured:
// internal/conformance/codex): the user's shell unless one is named; a
// named one by its kind (its file stem), /bin/sh for a kind Codex does
// not run here; login on unless false.
func TestExecCommandShell(t *testing.T) {
	for _, tc := range []struct {
		args  string
		shell string
		login bool
	}{
		{`{"cmd":"true"}`, "", true},
		{`{"cmd":"true","login":true}`, "", true},
		{`{"cmd":"true","login":false}`, "", false},
		{`{"cmd":"true","shell":"bash"}`, "bash", true},
		{`{"cmd":"true","shell":"/usr/bin/bash","login":false}`, "bash", false},
		{`{"cmd":"true","shell":"/nope/bash"}`, "bash", true},
		{`{"cmd":"true","shell":"C:/Git/bin/bash.exe"}`, "bash", true},
		{`{"cmd":"true","shell":"/bin/sh"}`, "sh", true},
		{`{"cmd":"true","shell":"/bin/zsh","login":false}`, "zsh", false},
		{`{"cmd":"true","shell":"fish"}`, "sh", true},
		{`{"cmd":"true","shell":"dash"}`, "sh", true},
		{`{"cmd":"true","shell":"pwsh"}`, "sh", true},
		{`{"cmd":"true","shell":"/bin/"}`, "sh", true},
		{`{"cmd":"true","shell":""}`, "sh", true},
		{`{"cmd":"true","shell":"/usr/bin/.."}`, "sh", true},
		{`{"cmd":"true","shell":"bash5"}`, "sh", true},
	} {
		m, _, err := mapCall(t, "exec_command", tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		in := m.Input.(handlers.ExecuteCommandInput)
		if in.Shell != tc.shell || in.Login != tc.login {
			t.Errorf("%s: shell %q login %v, want %q %v", tc.args, in.Shell, in.Login, tc.shell, tc.login)
		}
	}
}

// TestExecCommandShellMissing: a shell that is not installed
// (execute_command's unavailable) reads as Codex's failed spawn of a
// program that does not exist.
func TestExecCommandShellMissing(t *testing.T) {
	m, _, err := mapCall(t, "exec_command", `{"cmd":"true","shell":"zsh"}`)
	if err != nil {
		t.Fatal(err)
	}
	res := m.Result(tool.ErrorResult("The shell zsh was not found on the server's PATH; the command was not run."), api.ToolCodeUnavailable)
	want := `exec_command failed: CreateProcess { message: "Rejected(\"Failed to create unified exec process: No such file or directory (os error 2)\")" }`
	if got := res.LastText(); got != want || !res.IsError {
		t.Errorf("%q (error %v), want %q", got, res.IsError, want)
	}
}
