package handlers

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/randid"
)

// ShellSessionInput is shell_session's input: a command for the session's
// persistent shell, or a restart of it (the Messages API's bash tool).
type ShellSessionInput struct {
	Command string `json:"command,omitempty" validate:"max=131072" jsonschema:"the command line to run in the persistent shell"`
	Restart bool   `json:"restart,omitempty" jsonschema:"end the shell and start a fresh one"`
}

// persistentShell is the command line of a session's persistent shell: a
// bash reading commands from its standard input, as a background job so
// that cd and variables carry over between calls until a restart.
const persistentShell = "exec bash --noprofile --norc 2>&1"

// shellAnchor is written to a fresh shell first: the workspace's real
// path, read-only so no command can move it.
const shellAnchor = "readonly __tg_ws=\"$(builtin pwd -P)\"\n"

// shellReset runs after every command, before its exit status is
// reported, so the next command starts clean. The policy judges a command as if
// it ran in the workspace with no functions, traps or aliases of its own;
// a persistent shell keeps what an approved command left behind, and a
// later command that needs no approval would run under it: an approved
// `cd /` made `cat etc/shadow` read outside, an approved function named
// ls or a DEBUG trap ran inside every later command. So every function,
// trap and alias is dropped, and a shell whose working directory is
// outside the workspace goes back to its root, saying so. Variables and a
// directory inside the workspace carry over, as the tool promises. The
// builtins are called as builtins, so the drop cannot be a function. It
// runs after the command rather than before the next one: a DEBUG trap
// fires before any command, the reset's own included, so a trap left
// for the next call would run once more before it could be dropped; run
// here, whatever it prints belongs to the approved command's output.
const shellReset = `builtin unset -f $(builtin compgen -A function) 2>/dev/null; ` +
	`builtin trap - DEBUG ERR RETURN EXIT; builtin unalias -a 2>/dev/null; builtin shopt -u expand_aliases extdebug; ` +
	`builtin set +o functrace +o errtrace; ` +
	`case "$(builtin pwd -P)/" in "$__tg_ws"/*) ;; *) builtin cd -- "$__tg_ws" && ` +
	`builtin printf '%s\n' "(the shell's working directory was outside the workspace; it is back at the workspace root)";; esac`

// Limits of one command in the persistent shell.
const (
	shellCommandTimeout = 120 * time.Second
	shellPoll           = 10 * time.Millisecond
	shellMaxOutput      = 512 << 10
)

func newShellSession(name string, env tool.Env) *tool.Tool {
	cfg := env.Commands
	return tool.NewTool(tool.Spec[ShellSessionInput]{
		Name: name,
		Description: "Run a command in the session's persistent bash shell: the working directory and variables carry over " +
			"between calls until restart. Output is stdout and stderr together.",
		Run: func(ctx context.Context, call *tool.Call, in *ShellSessionInput) (tool.Result, error) {
			return runInShell(ctx, call, cfg, in)
		},
		Writes: true,
		Command: func(in *ShellSessionInput) tool.CommandLine {
			return tool.CommandLine{Command: in.Command}
		},
		ConcurrencySafe: func(in *ShellSessionInput) bool { return false },
	})
}

// sessionShell finds the session's running persistent shell, the newest
// when an ended one is still winding down.
func sessionShell(call *tool.Call) tool.Job {
	jobs := call.Jobs()
	for i := len(jobs) - 1; i >= 0; i-- {
		j := jobs[i]
		if j.Info().Command == persistentShell && j.State() == api.JobRunning {
			return j
		}
	}
	return nil
}

func runInShell(ctx context.Context, call *tool.Call, cfg *tool.CommandConfig, in *ShellSessionInput) (tool.Result, error) {
	sh := sessionShell(call)
	if in.Restart {
		if sh != nil {
			endShell(sh)
		}
		if _, err := startShell(call, cfg); err != nil {
			return tool.Result{}, err
		}
		return tool.TextResult("tool has been restarted."), nil
	}
	if strings.TrimSpace(in.Command) == "" {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalid, "no command provided.")
	}
	note := ""
	if sh != nil && shellRules(sh) != call.IgnoreRules().Fingerprint() {
		// The shell's sandbox hides what the rules hid when it started;
		// a running sandbox cannot learn new masks, so a new shell does.
		endShell(sh)
		sh, note = nil, shellRestartedNote
	}
	if sh == nil {
		var err error
		if sh, err = startShell(call, cfg); err != nil {
			return tool.Result{}, err
		}
	}
	res, err := shellRun(ctx, sh, in.Command)
	if err == nil && note != "" {
		res.Content = append([]api.Content{{Type: "text", Text: note}}, res.Content...)
	}
	return res, err
}

// shellRestartedNote tells the model why the shell lost its state.
const shellRestartedNote = "(The shell was restarted before this command: the ignore rules changed since it started, " +
	"and a running shell cannot take new ones. Its working directory and variables are reset.)\n"

// shellFingerprints holds, per running persistent shell, the fingerprint
// of the ignore rules its sandbox was made under.
var shellFingerprints sync.Map // tool.Job -> string

// shellRules is the fingerprint of the rules the shell started under.
func shellRules(sh tool.Job) string {
	fp, _ := shellFingerprints.Load(sh)
	s, _ := fp.(string)
	return s
}

// endShell ends a shell: asked to exit first, so that its input pipe is
// closed from its side, then killed; it waits a bounded time either way.
func endShell(sh tool.Job) {
	_, _ = fmt.Fprint(sh, "\nexit\n")
	select {
	case <-sh.Done():
		return
	case <-time.After(2 * time.Second):
	}
	sh.Kill()
	select {
	case <-sh.Done():
	case <-time.After(5 * time.Second):
	}
}

func startShell(call *tool.Call, cfg *tool.CommandConfig) (tool.Job, error) {
	sh, err := call.StartJob(tool.JobSpec{Command: persistentShell, Env: cfg.ChildEnvFor(call.CommandEnv), Stdin: true,
		MaxOutputBytes: cfg.OutputCap(), OutputDir: cfg.OutputDir, Spills: cfg.Spills})
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprint(sh, shellAnchor); err != nil {
		endShell(sh)
		return nil, tool.Errorf(api.ToolCodeFailed, "the shell did not start: %v", err)
	}
	shellFingerprints.Store(sh, call.IgnoreRules().Fingerprint())
	go func() {
		<-sh.Done()
		shellFingerprints.Delete(sh)
	}()
	return sh, nil
}

// shellRun writes the command and a sentinel carrying its exit status to
// the shell, and reads the shell's output up to the sentinel. A command
// that does not finish in time leaves the shell busy: it is killed, and
// the next call starts a fresh one.
func shellRun(ctx context.Context, sh tool.Job, command string) (tool.Result, error) {
	mark := "__toolgate_done_" + randid.Hex(8) + "__"
	start := sh.Info().OutputBytes
	// The command runs in the shell itself (cd and exports stay); the
	// sentinel follows on a line of its own whatever the command printed.
	if _, err := fmt.Fprintf(sh, "%s\n__tg_status=$?; %s; builtin printf '\\n%s%%s\\n' \"$__tg_status\"\n", command, shellReset, mark); err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "the shell has ended; restart it: %v", err)
	}
	deadline := time.Now().Add(shellCommandTimeout)
	for {
		out, _, err := sh.Read(start, shellMaxOutput+len(mark)+16)
		if err != nil {
			return tool.Result{}, err
		}
		if i := strings.Index(out, mark); i >= 0 {
			status, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(out[i+len(mark):], "\n", 2)[0]))
			text := strings.TrimSuffix(out[:i], "\n")
			if status != 0 {
				return tool.Result{Content: []api.Content{api.TextContent(text)}}, tool.Errorf(api.ToolCodeExitStatus, "Exit code %d", status)
			}
			return tool.TextResult(text), nil
		}
		select {
		case <-sh.Done():
			return tool.Result{Content: []api.Content{api.TextContent(out)}}, tool.Errorf(api.ToolCodeFailed, "the shell exited; the next call starts a fresh one.")
		case <-ctx.Done():
			go endShell(sh)
			return tool.Result{}, ctx.Err()
		case <-time.After(shellPoll):
		}
		if time.Now().After(deadline) {
			go endShell(sh)
			return tool.Result{Content: []api.Content{api.TextContent(out)}}, tool.Errorf(api.ToolCodeTimedOut,
				"the command did not finish within %s; the shell was killed and the next call starts a fresh one.", shellCommandTimeout)
		}
	}
}
