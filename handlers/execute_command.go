package handlers

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/shellcmd"
)

// ExecuteCommandInput is execute_command's input, as Cline sends it.
type ExecuteCommandInput struct {
	Command string `json:"command" validate:"required,max=131072" jsonschema:"the bash command line to run in the workspace"`
	// Shell is one of the POSIX shells only: policy rules judge the
	// command as a shell line, which a program of another language
	// named here (python3 -c) would run as something else.
	Shell string `json:"shell,omitempty" validate:"omitempty,oneof=bash sh dash zsh ksh mksh" jsonschema:"the shell that runs the command line as shell -c command: bash (the default), sh, dash, zsh, ksh or mksh, found on the server's PATH; one that is not installed is an error and nothing runs"`
	Login bool   `json:"login,omitempty" jsonschema:"true gives the command the environment its shell's login profile sets up (/etc/profile, then ~/.bash_profile or ~/.profile), read once a session with its output discarded; the command itself runs in a plain shell, not a login shell"`
	// RequiresApproval must be sent, true or false, as Cline requires it
	// (ExecuteCommandToolHandler.ts refuses a call without it).
	RequiresApproval *bool  `json:"requires_approval" validate:"required" jsonschema:"true for commands with side effects (installs, deletes, deploys, network)"`
	Timeout          int    `json:"timeout,omitempty" validate:"omitempty,min=1" jsonschema:"seconds before the command is killed (default 30, or 300 for installs, builds and tests)"`
	Cwd              string `json:"cwd,omitempty" jsonschema:"directory to run in, relative to the workspace (default: the workspace)"`
	Background       bool   `json:"background,omitempty" jsonschema:"true to start a long-running process (a dev server, a watcher) as a background job of the session: the call returns at once with the job's id; the job runs until it exits, is killed, or the session ends"`
	TTY              bool   `json:"tty,omitempty" jsonschema:"true runs the command under a pseudo-terminal (80x24): programs see a terminal, output and errors are one stream; a background job's input stays open for its stdin route"`
	Stdin            bool   `json:"stdin,omitempty" jsonschema:"with background: keep the job's standard input open for POST /v1/sessions/{sid}/jobs/{id}/stdin (otherwise it is empty)"`
	YieldMS          int    `json:"yield_ms,omitempty" validate:"omitempty,min=0,max=600000" jsonschema:"with background: wait up to this many milliseconds for the job to end; one that ended is answered as a foreground command, one still running with its id and its output so far"`
	// SaveOver and OutputFile name files of the session's output files
	// (ParseSavedOutput and ParseJobOutputFile read the notes naming
	// them), which Claude Code's Read opens.
	SaveOver   int  `json:"save_over,omitempty" validate:"omitempty,min=1" jsonschema:"when a command that succeeds writes more than this many bytes, save its whole output to a file of the session's output files and answer with its first save_over bytes and the file's path"`
	OutputFile bool `json:"output_file,omitempty" jsonschema:"with background: name the file of the session's output files that holds the job's output (written when read)"`
}

// analysis is shellcmd.Analyze(in.Command). The call's stages
// (scheduling, paths, timeout) each ask for it; shellcmd remembers recent
// lines, so a second ask is a lookup and a copy. (A memo on the input
// itself saved 1-2 µs more per command, well under a thousandth of one,
// and was dropped: docs/benchmarks.md.)
func (in *ExecuteCommandInput) analysis() shellcmd.Analysis {
	return shellcmd.Analyze(in.Command)
}

// commandMetrics are execute_command's own series.
type commandMetrics struct {
	running prometheus.Gauge
	bytes   *prometheus.CounterVec
	runs    *prometheus.CounterVec
}

// Statuses of toolgate_commands_total.
var commandStatuses = []string{"succeeded", "failed", "timed_out", "cancelled", "not_started"}

func newCommandMetrics(reg prometheus.Registerer) *commandMetrics {
	m := &commandMetrics{
		running: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "toolgate_command_processes_running", Help: "Commands of execute_command running now."}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_command_output_bytes_total", Help: "Output bytes commands wrote, by stream."}, []string{"stream"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_commands_total", Help: "Commands finished, by how they ended."}, []string{"status"}),
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	reg.MustRegister(m.running, m.bytes, m.runs)
	for _, s := range []string{"stdout", "stderr"} {
		m.bytes.WithLabelValues(s)
	}
	for _, s := range commandStatuses {
		m.runs.WithLabelValues(s)
	}
	return m
}

// commandRunner is execute_command with what it shares between calls.
type commandRunner struct {
	cfg     *tool.CommandConfig
	metrics *commandMetrics
	logins  loginEnvs
}

func newExecuteCommand(name string, env tool.Env) *tool.Tool {
	r := &commandRunner{cfg: env.Commands, metrics: newCommandMetrics(env.Registerer)}
	return tool.NewTool(tool.Spec[ExecuteCommandInput]{
		Name: name,
		Description: "Run a bash command in the workspace (stdin is empty and there is no terminal unless tty is set). Output streams live; the result " +
			"holds the exit code and the output, its first and last lines when it is longer than 1000 lines or 512 KB. " +
			"Commands are killed after `timeout` seconds: 30 by default, 300 for installs, builds and tests.",
		Run:             r.run,
		ConcurrencySafe: func(in *ExecuteCommandInput) bool { return in.analysis().ReadOnly() },
		Writes:          true,
		AwaitsStart:     true,
		Paths:           commandPaths,
		Command: func(in *ExecuteCommandInput) tool.CommandLine {
			return tool.CommandLine{Command: in.Command, RequiresApproval: in.RequiresApproval != nil && *in.RequiresApproval, Cwd: in.Cwd, Background: in.Background}
		},
	})
}

// commandPaths lists the directory and the file arguments of a command,
// relative to the workspace, for ignore and permission rules.
func commandPaths(in *ExecuteCommandInput) []string {
	cwd := path.Clean(filepath.ToSlash(in.Cwd))
	out := []string{cwd}
	for _, p := range in.analysis().PathArgs() {
		if !path.IsAbs(p) && !strings.HasPrefix(p, "~") {
			p = path.Join(cwd, p)
		}
		out = append(out, p)
	}
	return out
}

func (r *commandRunner) run(ctx context.Context, call *tool.Call, in *ExecuteCommandInput) (tool.Result, error) {
	// A command may change any file: reads after it count as first reads
	// again, as Cline's ExecuteCommandToolHandler clears its fileReadCache.
	defer call.Files.ForgetReads()
	dir, err := commandDir(call.Workspace, in.Cwd)
	if err != nil {
		return tool.Result{}, err
	}
	if err := findShell(in.Shell); err != nil {
		return tool.Result{}, err
	}
	env, err := r.commandEnv(ctx, call, in, dir)
	if err != nil {
		return tool.Result{}, err
	}
	if in.Background {
		if err := call.Recorded(); err != nil {
			return tool.Result{}, err
		}
		return r.startJob(ctx, call, in, dir, env)
	}
	sb, confine, err := call.Confinement(dir)
	if err != nil {
		return tool.Result{}, err
	}
	// The session's sandbox may serve its next command (internal/sandbox/reuse.go).
	confine.Session = call.SessionID
	timeout := commandTimeout(r.cfg, in)
	out := process.NewOutput(process.OutputLimits{Full: r.cfg.OutputCap(), Dir: r.cfg.OutputDir, Area: r.cfg.Spills})
	// Kept from the start, so that the output so far can be fetched while
	// the command runs.
	call.KeepOutput(out)
	r.metrics.running.Inc()
	var term *process.Terminal
	if in.TTY {
		term = process.NewTerminal(0, 0)
	}
	first := &firstChunk{}
	res, err := process.Run(ctx, process.Options{
		Sandbox: sb, Confine: confine,
		// The call's start record is written while the sandbox is
		// prepared; the command starts only once it is on disk.
		Ready:   call.Recorded,
		Command: in.Command, Shell: in.Shell, Dir: dir, Env: env, Timeout: timeout, Output: out,
		OnChunk: call.Output, Terminal: term,
		OnBytes: func(stream string, n int) {
			first.add(stream, n)
			r.metrics.bytes.WithLabelValues(stream).Add(float64(n))
		},
	})
	r.metrics.running.Dec()
	_ = out.Close()
	if err != nil {
		_ = out.Remove()
		r.metrics.runs.WithLabelValues("not_started").Inc()
		if errors.Is(err, sandbox.ErrUnavailable) {
			return tool.Result{}, tool.Errorf(api.ToolCodeNoSandbox, "The command was not run: %v", err)
		}
		return tool.Result{}, tool.Errorf(api.ToolCodeNotStarted, "The command could not start: %v", err)
	}
	where := fmt.Sprintf("/v1/sessions/%s/calls/%s/output", call.SessionID, call.ToolUseID)
	// A dialect that words the result itself (PlainResults) gets the
	// output as the command wrote it, its last line end included (Codex
	// shows it); Cline's gets it as Cline's terminal shapes it, the place
	// of the full output toolgate's output route instead of Cline's log
	// file.
	output, spilled := out.Summary(process.SummaryLimits{Hint: "full output: GET " + where}), false
	status, verdict := judge(res, timeout)
	r.metrics.runs.WithLabelValues(status).Inc()
	worded := !call.PlainResults
	if worded {
		output, spilled = call.Texts.CommandOutput(out.Ends(), first.size(), where)
	}
	if status == "timed_out" && worded {
		// The dialect's words first, toolgate's (the process group was
		// killed) after them as the error.
		return tool.Result{Content: []api.Content{api.TextContent(call.Texts.CommandTimedOut(timeout, output))}}, verdict
	}
	if status == "timed_out" || status == "cancelled" {
		result := tool.Result{}
		if output != "" {
			result.Content = []api.Content{api.TextContent(output)}
		}
		return result, verdict
	}
	if saved, ok := saveOutput(call, r.cfg.Outputs, in.SaveOver, status, out); ok {
		return saved, verdict
	}
	spilledTo := ""
	if spilled {
		spilledTo = where
	}
	text := call.Texts.CommandResult(res, output, spilledTo)
	result := tool.Result{Content: []api.Content{api.TextContent(text)}}
	if res.Stray {
		// toolgate's addition, after Cline's text.
		result.Content = append(result.Content, api.TextContent("(Background processes that kept the command's output open were stopped.)"))
	}
	if hint := call.SandboxHint(output); hint != "" && res.Limit == "" {
		result.Content = append(result.Content, api.TextContent(hint))
	}
	return result, verdict
}

// commandTimeout is the requested timeout, else the default for the
// command's kind: installs, builds and test runs get the long one.
func commandTimeout(cfg *tool.CommandConfig, in *ExecuteCommandInput) time.Duration {
	return cfg.Timeout(in.Timeout, in.analysis().LongRunning())
}

// judge says how a run ended: its metrics status and, unless it succeeded,
// the error that carries the call's code. A command that ran to its end
// (any exit status) is described by tool.Texts.CommandResult, so its error has no
// message of its own. For a cancelled run the coordinator says
// "Cancelled" and why (the call's cause) instead of this error's text.
func judge(res process.Result, timeout time.Duration) (string, error) {
	switch {
	case res.Cancelled:
		return "cancelled", tool.Errorf(api.ToolCodeCancelled, "The command was cancelled; its process group was killed.")
	case res.Limit != "":
		return "failed", tool.Errorf(api.ToolCodeSandboxLimit,
			"The command was stopped: it reached %s of the sandbox. Every process it started was killed.", res.Limit)
	case res.TimedOut:
		return "timed_out", tool.Errorf(api.ToolCodeTimedOut,
			"The command timed out after %s; its process group was killed. Pass a larger timeout (seconds) if it needs longer.", timeout)
	case res.Signal != "" || res.ExitCode != 0:
		return "failed", &tool.ToolError{Code: api.ToolCodeExitStatus}
	}
	return "succeeded", nil
}

// commandDir resolves cwd inside the workspace. The check goes through
// os.Root, so a symlink leading out is refused; the command itself is free
// to cd anywhere, so this is a rule about where calls start, not a sandbox.
func commandDir(ws *tool.Workspace, cwd string) (string, error) {
	rel, err := ws.Rel(cwd)
	if err != nil {
		return "", err
	}
	st, err := ws.Root.Stat(rel)
	if err != nil {
		return "", fileError(rel, err)
	}
	if !st.IsDir() {
		return "", tool.Errorf(api.ToolCodeNotDirectory, "cwd %s is not a directory.", rel)
	}
	return filepath.Join(ws.Dir, filepath.FromSlash(rel)), nil
}

// findShell checks that the shell named (none: bash) is installed, found
// on the server's PATH as the run will find it (the sandbox shows the
// same files, read-only), so that a missing one is the call's error, not
// a command that cannot start.
func findShell(shell string) error {
	if shell == "" {
		return nil
	}
	if _, err := exec.LookPath(shell); err != nil {
		return tool.Errorf(api.ToolCodeUnavailable, "The shell %s was not found on the server's PATH; the command was not run.", shell)
	}
	return nil
}

// commandEnv is the command's whole environment: the server's as
// CommandConfig.ChildEnvFor gives it, or with login the one the shell's
// login profile set up for the session (loginEnvs) under the same rule,
// or the former when none could be captured.
func (r *commandRunner) commandEnv(ctx context.Context, call *tool.Call, in *ExecuteCommandInput, dir string) ([]string, error) {
	env := r.cfg.ChildEnvFor(call.CommandEnv)
	if !in.Login {
		return env, nil
	}
	login, err := r.logins.forCall(ctx, call, r.cfg, in.Shell, dir, env)
	if err != nil || login == nil {
		return env, err
	}
	return login, nil
}

// startJob starts the command as a background job of the session. Any
// other command dies with its call: nothing it leaves running survives.
func (r *commandRunner) startJob(ctx context.Context, call *tool.Call, in *ExecuteCommandInput, dir string, env []string) (tool.Result, error) {
	spec := tool.JobSpec{Command: in.Command, Shell: in.Shell, Dir: dir, Env: env, Stdin: in.Stdin,
		MaxOutputBytes: r.cfg.OutputCap(), OutputDir: r.cfg.OutputDir, Spills: r.cfg.Spills}
	if in.TTY {
		spec.Terminal = &tool.TerminalSize{}
	}
	job, err := call.StartJob(spec)
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) {
			return tool.Result{}, tool.Errorf(api.ToolCodeNoSandbox, "The command was not run: %v", err)
		}
		return tool.Result{}, err
	}
	if in.YieldMS > 0 {
		return yieldJob(ctx, call, job, time.Duration(in.YieldMS)*time.Millisecond)
	}
	text := fmt.Sprintf("Started in the background as job %[1]s. It runs until it exits, is killed, or the session ends.\n"+
		"Its output: GET /v1/sessions/%[2]s/jobs/%[1]s/output?offset=0; stop it: DELETE /v1/sessions/%[2]s/jobs/%[1]s.",
		job.ID(), call.SessionID)
	res := tool.Result{Content: []api.Content{api.TextContent(text)}}
	if in.OutputFile {
		res = withJobOutputNote(call, r.cfg.Outputs, job.ID(), res)
	}
	return res, nil
}
