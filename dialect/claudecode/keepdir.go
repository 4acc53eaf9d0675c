package claudecode

import (
	"path"
	"path/filepath"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// keepDir records where a command that succeeded left the shell, as
// Claude Code's Bash runs `pwd -P` after a command that exits 0 and
// starts the next one there. toolgate reads the directory from the
// command line (its cds) rather than from the finished shell; a cd it
// cannot resolve (a variable, cd -) leaves the directory as it was. A
// directory outside the workspace is not kept: the shell goes back to
// the workspace root and the result says so, in Claude Code's words.
func keepDir(env tool.MapEnv, cwd, command string, res tool.Result) tool.Result {
	end := shellcmd.Analyze(command).EndDir
	if _, unknown := shellcmd.InUnknownDir(end + "/"); unknown || end == "" {
		return res
	}
	next := filepath.Join(env.Workspace.Dir, filepath.FromSlash(cwd), filepath.FromSlash(end))
	if path.IsAbs(end) {
		next = filepath.FromSlash(end)
	}
	rel, err := env.Workspace.Rel(next)
	if err != nil {
		env.Dir.Set("")
		reset := "Shell cwd was reset to " + env.Workspace.Dir
		if len(res.Content) > 0 && res.Content[0].Type == api.TypeText && res.Content[0].Text != "" {
			res.Content[0].Text += "\n" + reset
		} else {
			res.Content = append([]api.Content{api.TextContent(reset)}, res.Content...)
		}
		return res
	}
	if rel == "." {
		rel = ""
	}
	env.Dir.Set(rel)
	return res
}
