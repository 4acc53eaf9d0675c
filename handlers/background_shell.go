package handlers

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// BackgroundShellInput is background_shell's input: a command line to
// start as a background job of the session.
type BackgroundShellInput struct {
	Command string `json:"command" validate:"required,max=131072" jsonschema:"the bash command line to start in the workspace"`
}

// ShellOutputInput is shell_output's input.
type ShellOutputInput struct {
	ID     string `json:"id" validate:"required" jsonschema:"the background shell's id"`
	Filter string `json:"filter,omitempty" jsonschema:"regular expression: only output lines matching it are shown (the others are still consumed)"`
}

// KillShellInput is kill_shell's input.
type KillShellInput struct {
	ID string `json:"id" validate:"required" jsonschema:"the background shell's id"`
}

func newBackgroundShell(name string, env tool.Env) *tool.Tool {
	cfg := env.Commands
	return tool.NewTool(tool.Spec[BackgroundShellInput]{
		Name: name,
		Description: "Start a bash command in the background as a job of the session and return its id at once; " +
			"the job ends when it exits, when it is killed or when the session ends.",
		Run: func(ctx context.Context, call *tool.Call, in *BackgroundShellInput) (tool.Result, error) {
			j, err := call.Jobs.Start(in.Command, func(jctx context.Context, j *tool.Job) (int, error) {
				out := process.NewOutput(process.OutputLimits{Full: 1 << 20, Dir: cfg.OutputDir})
				defer func() { _ = out.Close(); _ = out.Remove() }()
				res, err := process.Run(jctx, process.Options{Command: in.Command, Dir: call.Workspace.Dir, Env: cfg.ChildEnv(), Output: out, OnChunk: j.Write})
				return res.ExitCode, err
			})
			if err != nil {
				return tool.Result{}, err
			}
			return tool.TextResult("Command running in background with ID: " + j.ID), nil
		},
		Writes: true,
		Paths: func(in *BackgroundShellInput) []string {
			return commandPaths(&ExecuteCommandInput{Command: in.Command})
		},
		Command: func(in *BackgroundShellInput) tool.CommandLine {
			return tool.CommandLine{Command: in.Command}
		},
		ConcurrencySafe: func(in *BackgroundShellInput) bool { return shellcmd.Analyze(in.Command).ReadOnly() },
	})
}

func newShellOutput(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[ShellOutputInput]{
		Name:        name,
		Description: "Read what a background shell wrote since it was last read, and its status.",
		Run:         shellOutput,
	})
}

// shellOutput answers in the tagged form of Claude Code's BashOutput.
func shellOutput(ctx context.Context, call *tool.Call, in *ShellOutputInput) (tool.Result, error) {
	j, ok := call.Jobs.Get(in.ID)
	if !ok {
		return tool.Result{}, tool.Errorf("not_found", "No shell found with ID: %s", in.ID)
	}
	var keep *regexp.Regexp
	if in.Filter != "" {
		re, err := regexp.Compile(in.Filter)
		if err != nil {
			return tool.Result{}, tool.Errorf("invalid_regex", "Invalid filter: %v", err)
		}
		keep = re
	}
	o := j.ReadNew()
	var b strings.Builder
	fmt.Fprintf(&b, "<status>%s</status>\n", o.Status)
	if o.Status != tool.JobRunning {
		fmt.Fprintf(&b, "\n<exit_code>%d</exit_code>\n", o.ExitCode)
	}
	for _, s := range []struct{ tag, text string }{{"stdout", o.Stdout}, {"stderr", o.Stderr}} {
		if text := filterLines(s.text, keep); text != "" {
			fmt.Fprintf(&b, "\n<%s>\n%s\n</%s>\n", s.tag, strings.TrimSuffix(text, "\n"), s.tag)
		}
	}
	if o.Dropped > 0 {
		fmt.Fprintf(&b, "\n(%d bytes of earlier output were dropped because they were not read in time.)\n", o.Dropped)
	}
	return tool.TextResult(b.String()), nil
}

func filterLines(text string, keep *regexp.Regexp) string {
	if keep == nil || text == "" {
		return text
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if keep.MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func newKillShell(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[KillShellInput]{
		Name:        name,
		Description: "Kill a background shell of the session by its id.",
		Run: func(ctx context.Context, call *tool.Call, in *KillShellInput) (tool.Result, error) {
			j, ok := call.Jobs.Get(in.ID)
			if !ok {
				return tool.Result{}, tool.Errorf("not_found", "No shell found with ID: %s", in.ID)
			}
			if !j.Kill(ctx) {
				return tool.Result{}, tool.Errorf("not_running", "Shell %s is not running, so cannot be killed (status: %s)", in.ID, j.Status())
			}
			return tool.TextResult(fmt.Sprintf("Successfully killed shell: %s (%s)", j.ID, j.Command)), nil
		},
	})
}
