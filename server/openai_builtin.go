package server

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/api"
	"golang.org/x/sys/unix"
)

// The Responses API's built-in client tools (openai-node
// src/resources/responses/responses.ts): apply_patch_call runs as an
// apply_patch call, shell_call and local_shell_call as execute_command
// calls, so each goes through the pipeline as those tools do (ignore
// rules, permission rules and approval, the sandbox) and is recorded under
// their names. They are answered in their own output shapes:
// apply_patch_call_output, shell_call_output (one entry per command),
// local_shell_call_output. The tools run are toolgate's own names, so in a
// session whose dialect has no such tool the output says so.

// applyPatchOperation is an apply_patch_call's operation: one file
// created, updated or deleted, its diff the V4A body of that file's
// section of a patch (what follows the "*** Add File:" or "*** Update
// File:" line), as @openai/agents-core's applyDiff reads it.
type applyPatchOperation struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Diff string `json:"diff"`
	// MoveTo renames an updated file: move_to in the API's update_file
	// operation, moveTo in the Agents SDK's (agents-core protocol
	// ApplyPatchOperationUpdateFile).
	MoveTo    string `json:"move_to"`
	SDKMoveTo string `json:"moveTo"`
}

// patchHeaders are the section lines of each operation type.
var patchHeaders = map[string]string{"create_file": "*** Add File: ", "update_file": "*** Update File: ", "delete_file": "*** Delete File: "}

// applyPatchRun runs an apply_patch_call as the patch of its one operation.
func applyPatchRun(i int, callID string, raw json.RawMessage) (*openAIRun, error) {
	var item struct {
		Operation *applyPatchOperation `json:"operation"`
	}
	if err := json.Unmarshal(raw, &item); err != nil {
		return nil, itemDecodeError(i, err)
	}
	op := item.Operation
	if op != nil && op.MoveTo == "" {
		op.MoveTo = op.SDKMoveTo
	}
	switch {
	case op == nil:
		return nil, itemError(i, "operation", "is required")
	case patchHeaders[op.Type] == "":
		return nil, itemError(i, "operation.type", "must be create_file, update_file or delete_file")
	case strings.TrimSpace(op.Path) == "" || strings.ContainsAny(op.Path, "\r\n"):
		return nil, itemError(i, "operation.path", "must be one non-empty line")
	case op.MoveTo != "" && (op.Type != "update_file" || strings.TrimSpace(op.MoveTo) == "" || strings.ContainsAny(op.MoveTo, "\r\n")):
		return nil, itemError(i, "operation.move_to", "must be one non-empty line, in an update_file operation")
	}
	var patch strings.Builder
	patch.WriteString("*** Begin Patch\n" + patchHeaders[op.Type] + op.Path + "\n")
	if op.MoveTo != "" {
		patch.WriteString("*** Move to: " + op.MoveTo + "\n")
	}
	if op.Type != "delete_file" {
		// A section line in the diff would start another file's section:
		// an operation is one file.
		for line := range strings.Lines(op.Diff) {
			if strings.HasPrefix(line, "*** ") && !strings.HasPrefix(line, "*** End of File") {
				return nil, itemError(i, "operation.diff", "must be one file's diff, without patch section lines ("+strings.TrimSpace(line)+")")
			}
		}
		patch.WriteString(op.Diff)
		if op.Diff != "" && !strings.HasSuffix(op.Diff, "\n") {
			patch.WriteString("\n")
		}
	}
	patch.WriteString("*** End Patch\n")
	use := api.ToolUse{Type: api.TypeToolUse, ID: callID, Name: "apply_patch", Input: customToolInput(patch.String())}
	return &openAIRun{uses: []api.ToolUse{use}, answer: func(res []api.ToolResult, _ []api.CallRecord) any {
		status := "completed"
		if res[0].IsError {
			status = "failed"
		}
		return applyPatchCallOutput{Type: "apply_patch_call_output", CallID: callID, Status: status, Output: openAIResultText(res[0])}
	}}, nil
}

// applyPatchCallOutput answers an apply_patch_call.
type applyPatchCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Status string `json:"status"`
	Output string `json:"output"`
}

// shellCallOutput answers a shell_call: one entry per command.
type shellCallOutput struct {
	Type            string        `json:"type"`
	CallID          string        `json:"call_id"`
	Output          []shellOutput `json:"output"`
	MaxOutputLength *int          `json:"max_output_length,omitempty"`
	Status          string        `json:"status"`
}

// shellOutput is one command's output and how it ended.
type shellOutput struct {
	Stdout  string       `json:"stdout"`
	Stderr  string       `json:"stderr"`
	Outcome shellOutcome `json:"outcome"`
}

// shellOutcome is {"type":"exit","exit_code":N} or {"type":"timeout"}.
type shellOutcome struct {
	Type     string `json:"type"`
	ExitCode *int   `json:"exit_code,omitempty"`
}

// shellRun runs a shell_call's commands, each as an execute_command call.
// A call in a hosted container (environment container_reference) is the
// API's to run, and is passed over.
func shellRun(i int, callID string, raw json.RawMessage) (*openAIRun, error) {
	var item struct {
		Environment *struct {
			Type string `json:"type"`
		} `json:"environment"`
		Action *struct {
			Commands        []string `json:"commands"`
			MaxOutputLength *int     `json:"max_output_length"`
			TimeoutMS       *int64   `json:"timeout_ms"`
		} `json:"action"`
	}
	if err := json.Unmarshal(raw, &item); err != nil {
		return nil, itemDecodeError(i, err)
	}
	if item.Environment != nil && item.Environment.Type == "container_reference" {
		return nil, nil
	}
	if item.Action == nil || len(item.Action.Commands) == 0 {
		return nil, itemError(i, "action.commands", "must hold at least one command")
	}
	a := item.Action
	uses := make([]api.ToolUse, len(a.Commands))
	for n, command := range a.Commands {
		id := callID
		if len(a.Commands) > 1 {
			id = fmt.Sprintf("%s#%d", callID, n+1)
		}
		uses[n] = api.ToolUse{Type: api.TypeToolUse, ID: id, Name: "execute_command", Input: commandInput(command, a.TimeoutMS, "", "", false)}
	}
	return &openAIRun{uses: uses, answer: func(res []api.ToolResult, calls []api.CallRecord) any {
		out := shellCallOutput{Type: "shell_call_output", CallID: callID, Output: make([]shellOutput, len(res)), MaxOutputLength: a.MaxOutputLength, Status: "completed"}
		for n := range res {
			o := commandOutcome(res[n], calls[n])
			if a.MaxOutputLength != nil {
				o.Stdout, o.Stderr = clipOutput(o.Stdout, o.Stderr, *a.MaxOutputLength)
			}
			out.Output[n] = o
		}
		return out
	}}, nil
}

// localShellOutput answers a local_shell_call. Its id is the call's
// call_id (openai-node ResponseInputItem.LocalShellCallOutput) and its
// output a JSON string, as Codex writes a command's output: the output
// and metadata with the exit code and the duration.
type localShellOutput struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Output string `json:"output"`
	Status string `json:"status"`
}

// localShellRun runs a local_shell_call's argv as an execute_command call.
func localShellRun(i int, callID string, raw json.RawMessage) (*openAIRun, error) {
	var item struct {
		Action *struct {
			Command          []string          `json:"command"`
			Env              map[string]string `json:"env"`
			TimeoutMS        *int64            `json:"timeout_ms"`
			User             string            `json:"user"`
			WorkingDirectory string            `json:"working_directory"`
		} `json:"action"`
	}
	if err := json.Unmarshal(raw, &item); err != nil {
		return nil, itemDecodeError(i, err)
	}
	a := item.Action
	switch {
	case a == nil || len(a.Command) == 0:
		return nil, itemError(i, "action.command", "must hold the command and its arguments")
	case a.User != "":
		return nil, itemError(i, "action.user", "toolgate runs commands as its own user; leave user out")
	}
	line, shell, login, err := commandLine(a.Command, a.Env)
	if err != nil {
		return nil, itemError(i, "action.env", err.Error())
	}
	use := api.ToolUse{Type: api.TypeToolUse, ID: callID, Name: "execute_command", Input: commandInput(line, a.TimeoutMS, a.WorkingDirectory, shell, login)}
	return &openAIRun{uses: []api.ToolUse{use}, answer: func(res []api.ToolResult, calls []api.CallRecord) any {
		o := commandOutcome(res[0], calls[0])
		text := o.Stdout
		if o.Stderr != "" {
			text = strings.TrimSuffix(text+"\n"+o.Stderr, "\n")
		}
		exit := -1 // a timeout has no exit code
		if o.Outcome.ExitCode != nil {
			exit = *o.Outcome.ExitCode
		}
		if o.Outcome.Type == "timeout" {
			text = strings.TrimPrefix(text+"\ncommand timed out", "\n")
		}
		meta := map[string]any{"exit_code": exit, "duration_seconds": math.Round(calls[0].DurationMS/100) / 10}
		b, _ := json.Marshal(map[string]any{"output": text, "metadata": meta})
		return localShellOutput{Type: "local_shell_call_output", ID: callID, Output: string(b), Status: "completed"}
	}}, nil
}

// commandInput is execute_command's input for a command the model gave
// without Cline's requires_approval: false, so that the session's rules
// and the defaults decide whether it waits for approval; shell names
// another shell than bash, login asks for the login profile's
// environment.
func commandInput(command string, timeoutMS *int64, cwd, shell string, login bool) json.RawMessage {
	in := map[string]any{"command": command, "requires_approval": false}
	if shell != "" && shell != "bash" {
		in["shell"] = shell
	}
	if login {
		in["login"] = true
	}
	if timeoutMS != nil && *timeoutMS > 0 {
		in["timeout"] = max(1, int((*timeoutMS+999)/1000))
	}
	if cwd != "" {
		in["cwd"] = cwd
	}
	raw, _ := json.Marshal(in)
	return raw
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// commandLine is an argv as a command line for execute_command: a
// `bash -c SCRIPT` (or sh, or -lc) is its script, run by that shell (and
// with -lc in the environment its login profile sets up: execute_command's
// login), so that permission rules judge the commands it runs; other argv
// are quoted word by word for bash. Environment variables are exported
// before it.
func commandLine(argv []string, env map[string]string) (line, shell string, login bool, err error) {
	if len(argv) == 3 && slices.Contains([]string{"bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/sh"}, argv[0]) && (argv[1] == "-c" || argv[1] == "-lc") {
		line, shell, login = argv[2], path.Base(argv[0]), argv[1] == "-lc"
	} else {
		words := make([]string, len(argv))
		for n, w := range argv {
			words[n] = shellQuote(w)
		}
		line = strings.Join(words, " ")
	}
	names := make([]string, 0, len(env))
	for k := range env {
		if !envName.MatchString(k) {
			return "", "", false, fmt.Errorf("%q is not an environment variable name", k)
		}
		names = append(names, k)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString("export " + k + "=" + shellQuote(env[k]) + "\n")
	}
	return b.String() + line, shell, login, nil
}

// shellQuote quotes a word for bash unless it needs none.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// exitText reads the exit status from execute_command's sentence
// (the default dialect's tool.Texts.CommandResult, which every dialect's
// command result starts with before the dialect rewords it).
var exitText = regexp.MustCompile(`^Command (?:executed successfully \(exit code (\d+)\)|failed with exit code (-?\d+)|terminated by signal (\w+))\.`)

// commandOutcome is an execute_command call's result as a shell output:
// the command's output (stdout and stderr together, as toolgate captures
// them) and its exit code, or a timeout. A call that did not run the
// command (denied, refused, not started) has no output; its reason is the
// stderr and its exit code 1.
func commandOutcome(res api.ToolResult, rec api.CallRecord) shellOutput {
	texts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		if c.Type == api.TypeText {
			texts = append(texts, c.Text)
		}
	}
	first, notes := "", ""
	if len(texts) > 0 {
		first, notes = texts[0], strings.Join(texts[1:], "\n")
	}
	code := ""
	if rec.Error != nil {
		code = rec.Error.Code
	}
	if code == api.ToolCodeTimedOut {
		_, out, ok := strings.Cut(first, "\nOutput so far:\n")
		if !ok && !strings.HasPrefix(first, "Command execution timed out") {
			out = first
		}
		return shellOutput{Stdout: out, Stderr: notes, Outcome: shellOutcome{Type: "timeout"}}
	}
	m := exitText.FindStringSubmatch(first)
	if m == nil || (rec.Status != api.StatusSucceeded && code != api.ToolCodeExitStatus) {
		return shellOutput{Stderr: openAIResultText(res), Outcome: exited(1)}
	}
	exit := 1
	switch {
	case m[1] != "":
		exit, _ = strconv.Atoi(m[1])
	case m[2] != "":
		exit, _ = strconv.Atoi(m[2])
	case unix.SignalNum(m[3]) != 0:
		exit = 128 + int(unix.SignalNum(m[3]))
	}
	_, out, _ := strings.Cut(first, "\nOutput:\n")
	return shellOutput{Stdout: out, Stderr: notes, Outcome: exited(exit)}
}

func exited(code int) shellOutcome { return shellOutcome{Type: "exit", ExitCode: &code} }

// clipOutput keeps at most n characters of stdout and stderr together,
// stdout first, as max_output_length asks.
func clipOutput(stdout, stderr string, n int) (string, string) {
	n = max(n, 0)
	out := []rune(stdout)
	if len(out) >= n {
		return string(out[:n]), ""
	}
	errs := []rune(stderr)
	return stdout, string(errs[:min(len(errs), n-len(out))])
}
