package claudecode

import (
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// TestKeepDirOutside: a successful command that cds out of the workspace
// leaves the shell at the workspace root, and its result says so in
// Claude Code's words ("Shell cwd was reset to ..."); one that cds inside
// is kept; a cd that cannot be resolved changes nothing.
func TestKeepDirOutside(t *testing.T) {
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	env := tool.MapEnv{Workspace: ws, Dir: &tool.ShellDir{}}
	keepDir(env, "", "cd src/lib", tool.TextResult(""))
	if got := env.Dir.Get(); got != "src/lib" {
		t.Fatalf("after cd src/lib the directory is %q", got)
	}
	keepDir(env, "src/lib", "cd $HOME", tool.TextResult(""))
	if got := env.Dir.Get(); got != "src/lib" {
		t.Fatalf("after cd $HOME the directory is %q, want it unchanged", got)
	}
	res := keepDir(env, "src/lib", "cd ../../.. && echo left", tool.TextResult("left"))
	if got, want := res.LastText(), "left\nShell cwd was reset to "+ws.Dir; got != want {
		t.Errorf("result = %q, want %q", got, want)
	}
	if got := env.Dir.Get(); got != "" {
		t.Errorf("after a cd out of the workspace the directory is %q, want the root", got)
	}
}
