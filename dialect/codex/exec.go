package codex

import (
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
	"github.com/toolgate/toolgate/internal/randid"
)

// ExecCommandInput is Codex's exec_command.
type ExecCommandInput struct {
	Cmd                string   `json:"cmd" validate:"required" jsonschema:"Shell command to execute."`
	Workdir            string   `json:"workdir,omitempty" jsonschema:"Working directory for the command. Defaults to the turn cwd."`
	Shell              *string  `json:"shell,omitempty" jsonschema:"Shell binary to launch. Defaults to the user's default shell."`
	Login              *bool    `json:"login,omitempty" jsonschema:"True runs the shell with -l/-i semantics; false disables them. Defaults to true."`
	TTY                bool     `json:"tty,omitempty" jsonschema:"True allocates a PTY for the command; false or omitted uses plain pipes."`
	YieldTimeMS        float64  `json:"yield_time_ms,omitempty" validate:"omitempty,min=0" jsonschema:"Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms."`
	MaxOutputTokens    float64  `json:"max_output_tokens,omitempty" validate:"omitempty,min=0" jsonschema:"Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy."`
	SandboxPermissions string   `json:"sandbox_permissions,omitempty" validate:"omitempty,oneof=use_default require_escalated" jsonschema:"Per-command sandbox override. Defaults to use_default; use require_escalated for unsandboxed execution."`
	Justification      string   `json:"justification,omitempty" jsonschema:"User-facing approval question for require_escalated; omit otherwise."`
	PrefixRule         []string `json:"prefix_rule,omitempty" jsonschema:"Reusable approval prefix for cmd, only with sandbox_permissions require_escalated."`
}

// Codex's defaults: exec_command's output budget, and how long
// exec_command and write_stdin wait for output before they yield
// (yield_time_ms, clamped as Codex clamps it). A command still running
// then stays running as a background job of the session, whose number is
// Codex's session id for write_stdin.
const (
	defaultMaxOutputTokens = 10000
	execYieldDefault       = 10000
	execYieldMin           = 250
	execYieldMax           = 30000
	stdinYieldDefault      = 250
	pollYieldMin           = 5000
	pollYieldMax           = 300000
)

// stdinYield is write_stdin's wait as Codex computes it: a write waits
// yield_time_ms (250 by default) within 250-30000; an empty poll waits
// that within 5000-300000, so a poll sees a command end up to 5 s later.
func stdinYield(ms float64, chars string) int {
	if chars == "" {
		return clampYield(ms, pollYieldMin, pollYieldMin, pollYieldMax)
	}
	return clampYield(ms, stdinYieldDefault, execYieldMin, execYieldMax)
}

func execCommand() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[ExecCommandInput]{
		Name:        "exec_command",
		Description: "Runs a command in a PTY (tty: true) or on pipes, returning output or a session ID for ongoing interaction.",
		Targets:     []string{"execute_command"},
		Map: func(env tool.MapEnv, in *ExecCommandInput) (tool.Mapping, error) {
			budget := tokenBudget(in.MaxOutputTokens)
			yield := clampYield(in.YieldTimeMS, execYieldDefault, execYieldMin, execYieldMax)
			start := time.Now()
			// login (true unless false) is Codex's shell snapshot: the
			// environment of the user's login profile, in a plain shell.
			login := in.Login == nil || *in.Login
			return tool.Mapping{Tool: "execute_command",
				Input: handlers.ExecuteCommandInput{Command: in.Cmd, Cwd: in.Workdir, RequiresApproval: new(false),
					Shell: execShell(in.Shell), Login: login, Background: true, TTY: in.TTY, YieldMS: yield},
				Result: func(res tool.Result, code string) tool.Result {
					if text, ok := spawnFailure(code); ok {
						return tool.ErrorResult(text)
					}
					return execResult(res, code, time.Since(start), budget, in.TTY)
				}}, nil
		},
	})
}

// spawnFailure is Codex's answer when its process could not start: in a
// workdir that does not exist (execute_command's not_found for its cwd)
// or is not a directory, or with a shell that is not installed
// (execute_command's unavailable; Codex itself falls back to /bin/sh, but
// its spawn of a missing program fails so). Codex words the spawn's error
// as its Rust error value prints, the OS error's text and number
// included.
func spawnFailure(code string) (string, bool) {
	var cause string
	switch code {
	case api.ToolCodeNotFound, api.ToolCodeUnavailable:
		cause = "No such file or directory (os error 2)"
	case api.ToolCodeNotDirectory:
		cause = "Not a directory (os error 20)"
	default:
		return "", false
	}
	return `exec_command failed: CreateProcess { message: "Rejected(\"Failed to create unified exec process: ` + cause + `\")" }`, true
}

// tokenBudget is max_output_tokens, Codex's default when unset.
func tokenBudget(n float64) int {
	if n >= 1 {
		return int(n)
	}
	return defaultMaxOutputTokens
}

// clampYield is a yield_time_ms as Codex uses it: def when unset, within
// lo and hi.
func clampYield(ms float64, def, lo, hi int) int {
	if ms <= 0 {
		return def
	}
	return min(max(int(ms), lo), hi)
}

// execResult words execute_command's plain result as Codex's unified exec
// does: a chunk id, the wall time, the exit code, the output's token count
// and the output. A call refused before the command ran keeps toolgate's
// text. Under a terminal (tty) a command killed by a signal (Ctrl-C)
// reads as exit code 1, as Codex's PTY reports it.
func execResult(res tool.Result, code string, wall time.Duration, budget int, tty bool) tool.Result {
	if len(res.Content) == 0 || res.Content[0].Type != api.TypeText {
		return res
	}
	head, body, _ := strings.Cut(res.Content[0].Text, "\n")
	output := strings.TrimPrefix(body, "Output:\n")
	var status string
	var exit int
	switch {
	case head == "Command executed successfully (exit code 0).":
		status = "Process exited with code 0"
	case scan(head, "Command failed with exit code %d.", &exit):
		status = fmt.Sprintf("Process exited with code %d", exit)
	case strings.HasPrefix(head, "Command terminated by signal ") && tty:
		status = "Process exited with code 1"
	case strings.HasPrefix(head, "Command terminated by signal "):
		status = "Process " + strings.TrimSuffix(strings.TrimPrefix(head, "Command "), ".")
	case scan(head, "Job job_%d is still running.", &exit):
		status = fmt.Sprintf("Process running with session ID %d", exit)
	default:
		return res
	}
	rest, omitted := omittedNote(res.Content[1:])
	tokens := approxTokens(output)
	if omitted > 0 {
		// The whole output's count: the marker out, the bytes left out in.
		tokens = (len(output) - len(fmt.Sprintf(handlers.OmittedMarker, omitted)) + int(omitted) + 3) / 4
	}
	text := fmt.Sprintf("Chunk ID: %s\nWall time: %.4f seconds\n%s\nOriginal token count: %d\nOutput:\n%s",
		chunkID(), wall.Seconds(), status, tokens, truncateTokens(output, budget, tokens, omitted))
	res.Content = append([]api.Content{api.TextContent(text)}, rest...)
	return res
}

// omittedNote finds, among the blocks after the output, the note that
// counts the bytes a yield left out of it, and returns the other blocks
// and that count.
func omittedNote(blocks []api.Content) ([]api.Content, int64) {
	for i, b := range blocks {
		var n int64
		if b.Type == api.TypeText && scan(b.Text, handlers.OmittedNote, &n) {
			return append(blocks[:i:i], blocks[i+1:]...), n
		}
	}
	return blocks, 0
}

// approxTokens is Codex's estimate of a text's tokens: four bytes a token,
// rounded up.
func approxTokens(s string) int { return (len(s) + 3) / 4 }

// truncateTokens keeps an output within budget tokens as Codex does: a
// warning with the whole output's token count (tokens) and its line
// count, or the bytes its yield left out (omitted), then its head and
// its tail, with the number of tokens left out between them.
func truncateTokens(s string, budget, tokens int, omitted int64) string {
	limit := budget * 4
	if len(s) <= limit {
		return s
	}
	lines := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		lines++
	}
	counted := fmt.Sprintf("Total output lines: %d", lines)
	if omitted > 0 {
		counted = strings.Trim(fmt.Sprintf(handlers.OmittedMarker, omitted), "\n")
	}
	head, tail := s[:limit/2], s[len(s)-limit/2:]
	return fmt.Sprintf("Warning: truncated output (original token count: %d)\n%s\n\n%s…%d tokens truncated…%s",
		tokens, counted, head, approxTokens(s[limit/2:len(s)-limit/2]), tail)
}

// chunkID is a fresh output chunk id, six hex digits as Codex's.
func chunkID() string { return randid.Hex(3) }

// scan reports whether s is format filled in (one verb).
func scan(s, format string, arg any) bool {
	n, err := fmt.Sscanf(s, format, arg)
	return err == nil && n == 1
}

// WriteStdinInput is Codex's write_stdin.
type WriteStdinInput struct {
	SessionID       *float64 `json:"session_id" validate:"required" jsonschema:"Identifier of the running unified exec session."`
	Chars           string   `json:"chars,omitempty" jsonschema:"Bytes to write to stdin. Defaults to empty, which polls without writing."`
	YieldTimeMS     float64  `json:"yield_time_ms,omitempty" jsonschema:"Wait before yielding output."`
	MaxOutputTokens float64  `json:"max_output_tokens,omitempty" jsonschema:"Output token budget."`
}

// writeStdin writes chars to the job an exec_command left running (its
// session id is the job's number), waits yield_time_ms for output or the
// job's end, and answers as exec_command does.
func writeStdin() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[WriteStdinInput]{
		Name:        "write_stdin",
		Description: "Writes characters to an existing unified exec session and returns recent output.",
		Targets:     []string{"job_stdin"},
		Map: func(env tool.MapEnv, in *WriteStdinInput) (tool.Mapping, error) {
			id := *in.SessionID
			budget := tokenBudget(in.MaxOutputTokens)
			yield := stdinYield(in.YieldTimeMS, in.Chars)
			start := time.Now()
			return tool.Mapping{Tool: "job_stdin",
				Input: handlers.JobStdinInput{ID: fmt.Sprintf("job_%v", id), Input: in.Chars, Wait: yield},
				Result: func(res tool.Result, code string) tool.Result {
					text := res.LastText()
					switch {
					case code == api.ToolCodeNotFound:
						return tool.ErrorResult(fmt.Sprintf("write_stdin failed: Unknown process id %v", id))
					case strings.Contains(text, "without standard input"):
						return tool.ErrorResult("write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open")
					}
					// Only a terminal takes chars: a write reached one.
					return execResult(res, code, time.Since(start), budget, in.Chars != "")
				}}, nil
		},
	})
}
