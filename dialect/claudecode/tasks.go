package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// Claude Code 2.1's tools for background commands, TaskOutput and
// TaskStop (BashOutput and KillShell before them), mapped onto
// shell_output and kill_shell, their answers worded as the conformance
// harness records them from the real CLI.

// TaskOutputInput is Claude Code's TaskOutput.
type TaskOutputInput struct {
	TaskID  string   `json:"task_id" validate:"required" jsonschema:"The ID of the background task to read"`
	Block   *bool    `json:"block" validate:"required" jsonschema:"Whether to wait for the task to finish before answering"`
	Timeout *float64 `json:"timeout" validate:"required,min=0,max=600000" jsonschema:"How long to wait for it, in milliseconds (at most 600000)"`
}

// Claude Code's defaults for a TaskOutput call that leaves block or
// timeout out.
const (
	taskOutputBlock   = true
	taskOutputTimeout = 30000
)

// UnmarshalJSON decodes TaskOutput's input as Claude Code's schema check
// reads it: its schema lists block and timeout as required, yet a call
// leaving them out runs with their defaults (block true, timeout 30000
// ms), as the conformance harness records from the real CLI. Unknown
// keys are refused, as the coordinator's decoder refuses them.
func (in *TaskOutputInput) UnmarshalJSON(b []byte) error {
	type plain TaskOutputInput
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	if p.Block == nil {
		p.Block = new(taskOutputBlock)
	}
	if p.Timeout == nil {
		p.Timeout = new(float64(taskOutputTimeout))
	}
	*in = TaskOutputInput(p)
	return nil
}

// TaskStopInput is Claude Code's TaskStop; shell_id is KillShell's name
// for the same id.
type TaskStopInput struct {
	TaskID  string `json:"task_id,omitempty" jsonschema:"The ID of the background task to stop"`
	ShellID string `json:"shell_id,omitempty" jsonschema:"Deprecated: the same as task_id"`
}

func claudeTaskOutput() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[TaskOutputInput]{
		Name:        "TaskOutput",
		Description: "Reads the output and status of a background task (a Bash command run with run_in_background), waiting for it to finish unless block is false.",
		Targets:     []string{"shell_output"},
		Map: func(env tool.MapEnv, in *TaskOutputInput) (tool.Mapping, error) {
			wait := 0
			if *in.Block {
				wait = int(*in.Timeout)
			}
			return tool.Mapping{Tool: "shell_output", Input: handlers.ShellOutputInput{ID: in.TaskID, Wait: wait},
				Result: func(res tool.Result, code string) tool.Result {
					return taskOutputResult(in.TaskID, *in.Block, res, code)
				}}, nil
		},
	})
}

func claudeTaskStop() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[TaskStopInput]{
		Name:        "TaskStop",
		Description: "Stops a running background task by its ID.",
		Targets:     []string{"kill_shell"},
		Map: func(env tool.MapEnv, in *TaskStopInput) (tool.Mapping, error) {
			id := in.TaskID
			if id == "" {
				id = in.ShellID
			}
			if id == "" {
				return tool.Mapping{}, tool.Errorf(api.ToolCodeInvalid, "<tool_use_error>Missing required parameter: task_id</tool_use_error>")
			}
			return tool.Mapping{Tool: "kill_shell", Input: handlers.KillShellInput{ID: id}, Result: func(res tool.Result, code string) tool.Result {
				return taskStopResult(id, res, code)
			}}, nil
		},
	})
}

var (
	shellStatusTag = regexp.MustCompile(`<status>(\w+)</status>`)
	shellExitTag   = regexp.MustCompile(`<exit_code>(-?\d+)</exit_code>`)
	shellStdoutTag = regexp.MustCompile(`(?s)<stdout>\n(.*)\n</stdout>`)
	killedCommand  = regexp.MustCompile(`(?s)^Successfully killed shell: \S+ \((.*)\)$`)
)

// taskOutputResult rewords shell_output's answer (BashOutput's tags) as
// TaskOutput's.
func taskOutputResult(id string, blocked bool, res tool.Result, code string) tool.Result {
	if code == api.ToolCodeNotFound {
		return toolUseError("No task found with ID: " + id)
	}
	if code != "" {
		return res
	}
	text := res.LastText()
	status := "running"
	if m := shellStatusTag.FindStringSubmatch(text); m != nil {
		status = m[1]
	}
	retrieval := "success"
	if status == "running" {
		retrieval = "not_ready"
		if blocked {
			retrieval = "timeout"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<retrieval_status>%s</retrieval_status>\n\n<task_id>%s</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>%s</status>", retrieval, id, status)
	if m := shellExitTag.FindStringSubmatch(text); m != nil {
		fmt.Fprintf(&b, "\n\n<exit_code>%s</exit_code>", m[1])
	}
	if m := shellStdoutTag.FindStringSubmatch(text); m != nil {
		fmt.Fprintf(&b, "\n\n<output>\n%s\n</output>", m[1])
	}
	return tool.TextResult(b.String())
}

// taskStopResult rewords kill_shell's answer as TaskStop's JSON.
func taskStopResult(id string, res tool.Result, code string) tool.Result {
	switch code {
	case "":
	case api.ToolCodeNotFound:
		return toolUseError("No task found with ID: " + id)
	default:
		return toolUseError(res.LastText())
	}
	command := ""
	if m := killedCommand.FindStringSubmatch(res.LastText()); m != nil {
		command = m[1]
	}
	js, _ := json.Marshal(struct {
		Message  string `json:"message"`
		TaskID   string `json:"task_id"`
		TaskType string `json:"task_type"`
		Command  string `json:"command"`
	}{fmt.Sprintf("Successfully stopped task: %s (%s)", id, command), id, "local_bash", command})
	return tool.TextResult(string(js))
}
