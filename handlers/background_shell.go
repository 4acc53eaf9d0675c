package handlers

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// ShellOutputInput is shell_output's input: which background job of the
// session to read (execute_command's background: true starts them).
type ShellOutputInput struct {
	ID     string `json:"id" validate:"required" jsonschema:"the background job's id"`
	Filter string `json:"filter,omitempty" jsonschema:"regular expression: only output lines matching it are shown (the others are still consumed)"`
	Wait   int    `json:"wait,omitempty" validate:"min=0,max=600000" jsonschema:"milliseconds to wait for the job to end before reading (0: read at once)"`
}

// KillShellInput is kill_shell's input.
type KillShellInput struct {
	ID string `json:"id" validate:"required" jsonschema:"the background job's id"`
}

// shellOutputMax bounds one read of a job's new output.
const shellOutputMax = 256 << 10

func newShellOutput(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[ShellOutputInput]{
		Name:        name,
		Description: "Read what a background job wrote since it was last read, and its status.",
		Run:         shellOutput,
	})
}

// shellOutput answers in the tagged form of Claude Code's BashOutput.
func shellOutput(ctx context.Context, call *tool.Call, in *ShellOutputInput) (tool.Result, error) {
	j, ok := call.Job(in.ID)
	if !ok {
		return tool.Result{}, tool.Errorf(api.ToolCodeNotFound, "No shell found with ID: %s", in.ID)
	}
	var keep *regexp.Regexp
	if in.Filter != "" {
		re, err := regexp.Compile(in.Filter)
		if err != nil {
			return tool.Result{}, tool.Errorf(api.ToolCodeInvalid, "Invalid filter: %v", err)
		}
		keep = re
	}
	if in.Wait > 0 {
		wait := time.NewTimer(time.Duration(in.Wait) * time.Millisecond)
		defer wait.Stop()
		select {
		case <-j.Done():
		case <-wait.C:
		case <-ctx.Done():
			return tool.Result{}, ctx.Err()
		}
	}
	// The state first: output read after it is complete for a job that
	// had already ended.
	info := j.Info()
	out, err := j.ReadNew(shellOutputMax)
	if err != nil {
		return tool.Result{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<status>%s</status>\n", shellStatus(info))
	if info.ExitCode != nil {
		fmt.Fprintf(&b, "\n<exit_code>%d</exit_code>\n", *info.ExitCode)
	}
	if text := filterLines(out, keep); text != "" {
		fmt.Fprintf(&b, "\n<stdout>\n%s\n</stdout>\n", strings.TrimSuffix(text, "\n"))
	}
	if info.Reason != "" {
		fmt.Fprintf(&b, "\n<reason>%s</reason>\n", info.Reason)
	}
	return tool.TextResult(b.String()), nil
}

// shellStatus names a job's state as BashOutput does: running, completed
// (exit 0), failed or killed.
func shellStatus(info api.Job) string {
	switch {
	case info.State == api.JobExited && info.ExitCode != nil && *info.ExitCode == 0:
		return "completed"
	case info.State == api.JobExited:
		return "failed"
	}
	return string(info.State)
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
		Description: "Kill a background job of the session by its id, and wait until it has ended.",
		Run: func(ctx context.Context, call *tool.Call, in *KillShellInput) (tool.Result, error) {
			j, ok := call.Job(in.ID)
			if !ok {
				return tool.Result{}, tool.Errorf(api.ToolCodeNotFound, "No shell found with ID: %s", in.ID)
			}
			if st := j.State(); st != api.JobRunning {
				return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "Shell %s is not running, so cannot be killed (status: %s)", in.ID, st)
			}
			j.Kill()
			select {
			case <-j.Done():
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
			return tool.TextResult(fmt.Sprintf("Successfully killed shell: %s (%s)", in.ID, j.Info().Command)), nil
		},
	})
}
