package coordinator

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/capbuf"
	"github.com/toolgate/toolgate/internal/process"
)

// SubagentConfig turns agent files into tools use_subagent_<name>. A
// subagent runs through one runner: Command or URL.
type SubagentConfig struct {
	// Dir holds the agent files (*.md with YAML front-matter).
	Dir string `json:"dir,omitempty"`
	// Command runs one subagent through bash: it gets the prompt on stdin
	// and TOOLGATE_URL, TOOLGATE_TOKEN, TOOLGATE_SESSION, TOOLGATE_AGENT
	// and TOOLGATE_SYSTEM_PROMPT in its environment; its stdout is the
	// answer. Any CLI agent fits.
	Command string `json:"command,omitempty"`
	// URL is an HTTP runner: toolgate POSTs it {agent, system_prompt,
	// prompt, toolgate_url, token, session_id} and the response body is
	// the answer, streamed as it comes (an IDE extension or an agent
	// service can run subagents itself).
	URL string `json:"url,omitempty"`
	// Headers go with every POST to URL (an API key, say).
	Headers map[string]string `json:"headers,omitempty"`
	// ToolgateURL is toolgate's own address as the runner reaches it.
	ToolgateURL string `json:"toolgate_url,omitempty"`
	// Timeout bounds one run (default 10 minutes).
	Timeout Duration `json:"timeout,omitempty"`
}

// maxSubagentAnswer caps the answer kept for the tool_result; the output
// events carry everything.
const maxSubagentAnswer = 1 << 20

// agentPermissions are a child session's rules: the agent's tools
// allowed, every other tool denied, subagents included, so a subagent
// can neither widen its rights nor start subagents of its own.
func (c *Coordinator) agentPermissions(a *agentFile) api.Permissions {
	p := api.Permissions{Allow: append([]string(nil), a.Tools...), Deny: []string{SubagentPrefix + "*", UseSubagents}}
	for _, name := range c.registry.Names() {
		if !contains(a.Tools, name) {
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
func (c *Coordinator) runSubagent(ctx context.Context, call *tool.Call, a *agentFile, prompt string) (tool.Result, error) {
	sc := c.cfg.Subagents
	switch {
	case sc.Command != "" && sc.URL != "":
		// A config from before subagents.url named a runner endpoint
		// gave toolgate's own address there: refuse rather than post to it.
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "subagents.command and subagents.url are both set: configure one runner (toolgate's own address is subagents.toolgate_url)")
	case sc.Command == "" && sc.URL == "":
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "no subagent runner is configured (subagents.command or subagents.url)")
	}
	child, err := c.sessions.Create(api.ModeAct, c.agentPermissions(a))
	if err != nil {
		return tool.Result{}, err
	}
	defer func() { _ = c.sessions.Delete(child.ID) }()
	token, revoke := c.scoped.issue(child.ID)
	defer revoke()
	j := subagentJob{agent: a, prompt: prompt, token: token, session: child.ID, timeout: time.Duration(sc.Timeout)}
	if sc.URL != "" {
		return c.runHTTPSubagent(ctx, call, j)
	}
	return c.runCommandSubagent(ctx, call, j)
}

// runCommandSubagent runs the command runner; its stdout is the answer.
func (c *Coordinator) runCommandSubagent(ctx context.Context, call *tool.Call, j subagentJob) (tool.Result, error) {
	sc, a := c.cfg.Subagents, j.agent
	env := append(c.cfg.Commands.ChildEnv(), "TOOLGATE_URL="+sc.ToolgateURL, "TOOLGATE_TOKEN="+j.token,
		"TOOLGATE_SESSION="+j.session, "TOOLGATE_AGENT="+a.Name, "TOOLGATE_SYSTEM_PROMPT="+a.SystemPrompt)
	stdout := &capbuf.Buffer{Max: maxSubagentAnswer}
	all := process.NewOutput(process.OutputLimits{Dir: c.cfg.Commands.OutputDir, Area: c.cfg.Commands.Spills})
	defer func() { _ = all.Close(); _ = all.Remove() }()
	dir := ""
	if c.workspace != nil {
		dir = c.workspace.Dir
	}
	confine, err := c.confine(dir, c.ignoreMatcher())
	if err != nil {
		return tool.Result{}, err
	}
	// The runner is an agent: it must reach its model and toolgate.
	confine.Network = true
	res, err := process.Run(ctx, process.Options{Sandbox: c.sandbox, Confine: confine, Command: sc.Command, Dir: dir, Env: env, Stdin: strings.NewReader(j.prompt),
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
