package subagents

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/capbuf"
	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// Config is what runs subagents: the agent directory and one runner,
// Command or URL (the config file's subagents section, resolved).
type Config struct {
	// Dir holds the agent files (*.md with YAML front-matter).
	Dir string
	// Command runs one subagent through bash: it gets the prompt on stdin
	// and TOOLGATE_URL, TOOLGATE_TOKEN, TOOLGATE_SESSION, TOOLGATE_AGENT
	// and TOOLGATE_SYSTEM_PROMPT in its environment; its stdout is the
	// answer.
	Command string
	// URL is an HTTP runner: it is POSTed {agent, system_prompt, prompt,
	// toolgate_url, token, session_id} and its response body is the
	// answer, streamed as it comes.
	URL string
	// Headers go with every POST to URL.
	Headers map[string]string
	// ToolgateURL is toolgate's own address as the runner reaches it.
	ToolgateURL string
	// Timeout bounds one run.
	Timeout time.Duration
	// Commands gives the command runner its environment and where its
	// full output is spilled.
	Commands *tool.CommandConfig
	// Logger takes the warnings about the agent directory.
	Logger *slog.Logger
}

// Host is what a subagent run needs of the coordinator that serves its
// calls: the tools an agent may be denied, a child session with its own
// rules, and the confinement of the command runner. The coordinator
// implements it; this package never sees the coordinator itself.
type Host interface {
	// ToolNames lists the registry's tools.
	ToolNames() []string
	// StartChild creates a child session under perms; end deletes it.
	StartChild(perms api.Permissions) (id string, end func(), err error)
	// Confine says how the command runner is confined: the sandbox (nil
	// runs it unconfined) and what the process may see; the Run's Dir is
	// its working directory.
	Confine() (*sandbox.Sandbox, sandbox.Run, error)
}

// maxSubagentAnswer caps the answer kept for the tool_result; the output
// events carry everything.
const maxSubagentAnswer = 1 << 20

// agentPermissions are a child session's rules: the agent's tools
// allowed, every other tool denied, subagents included, so a subagent
// can neither widen its rights nor start subagents of its own.
func agentPermissions(a *agentFile, tools []string) api.Permissions {
	p := api.Permissions{Allow: append([]string(nil), a.Tools...), Deny: []string{tool.SubagentPrefix + "*", UseSubagents}}
	for _, name := range tools {
		if !slices.Contains(a.Tools, name) {
			p.Deny = append(p.Deny, name)
		}
	}
	sort.Strings(p.Deny)
	return p
}

// subagentJob is one subagent run as its runner sees it.
type subagentJob struct {
	agent   *agentFile
	prompt  string
	token   string
	session string
	timeout time.Duration
}

// runSubagent runs an agent in a child session of its own, with a token
// that admits it to that session only, through the configured runner.
// Its output streams as tool.output; its answer is the result.
func (src *Source) runSubagent(ctx context.Context, call *tool.Call, a *agentFile, prompt string) (tool.Result, error) {
	sc := src.cfg
	switch {
	case sc.Command != "" && sc.URL != "":
		// A config from before subagents.url named a runner endpoint
		// gave toolgate's own address there: refuse rather than post to it.
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "subagents.command and subagents.url are both set: configure one runner (toolgate's own address is subagents.toolgate_url)")
	case sc.Command == "" && sc.URL == "":
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "no subagent runner is configured (subagents.command or subagents.url)")
	}
	child, end, err := src.host.StartChild(agentPermissions(a, src.host.ToolNames()))
	if err != nil {
		return tool.Result{}, err
	}
	defer end()
	token, revoke := src.tokens.issue(child)
	defer revoke()
	j := subagentJob{agent: a, prompt: prompt, token: token, session: child, timeout: sc.Timeout}
	if sc.URL != "" {
		return src.runHTTPSubagent(ctx, call, j)
	}
	return src.runCommandSubagent(ctx, call, j)
}

// runCommandSubagent runs the command runner; its stdout is the answer.
func (src *Source) runCommandSubagent(ctx context.Context, call *tool.Call, j subagentJob) (tool.Result, error) {
	sc, a := src.cfg, j.agent
	env := append(sc.Commands.ChildEnv(), "TOOLGATE_URL="+sc.ToolgateURL, "TOOLGATE_TOKEN="+j.token,
		"TOOLGATE_SESSION="+j.session, "TOOLGATE_AGENT="+a.Name, "TOOLGATE_SYSTEM_PROMPT="+a.SystemPrompt)
	stdout := &capbuf.Buffer{Max: maxSubagentAnswer}
	all := process.NewOutput(process.OutputLimits{Dir: sc.Commands.OutputDir, Area: sc.Commands.Spills})
	defer func() { _ = all.Close(); _ = all.Remove() }()
	box, confine, err := src.host.Confine()
	if err != nil {
		return tool.Result{}, err
	}
	// The runner is an agent: it must reach its model and toolgate.
	confine.Network = true
	res, err := process.Run(ctx, process.Options{Sandbox: box, Confine: confine, Command: sc.Command, Dir: confine.Dir, Env: env, Stdin: strings.NewReader(j.prompt),
		Timeout: j.timeout, Output: all, OnChunk: func(stream, chunk string) {
			if stream == "stdout" {
				stdout.Add(chunk)
			}
			call.Output(stream, chunk)
		}})
	switch {
	case err != nil:
		return tool.Result{}, fmt.Errorf("cannot start the subagent runner: %w", err)
	case res.TimedOut:
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "the %s subagent timed out after %s", a.Name, j.timeout)
	case res.ExitCode != 0 && !res.Cancelled:
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "the %s subagent failed (exit status %d)", a.Name, res.ExitCode)
	}
	return tool.TextResult(string(bytes.TrimSpace(stdout.Bytes()))), nil
}
