package coordinator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/handlers/process"
)

// SubagentConfig turns agent files into tools use_subagent_<name>.
type SubagentConfig struct {
	// Dir holds the agent files (*.md with YAML front-matter).
	Dir string `json:"dir,omitempty"`
	// Command runs one subagent through bash: it gets the prompt on stdin
	// and TOOLGATE_URL, TOOLGATE_TOKEN, TOOLGATE_SESSION, TOOLGATE_AGENT
	// and TOOLGATE_SYSTEM_PROMPT in its environment; its stdout is the
	// answer. Any CLI agent fits.
	Command string `json:"command,omitempty"`
	// URL is toolgate's own address as the runner reaches it.
	URL string `json:"url,omitempty"`
	// Timeout bounds one run (default 10 minutes).
	Timeout Duration `json:"timeout,omitempty"`
}

// defaultSubagentTimeout bounds a subagent run when the config does not.
const defaultSubagentTimeout = 10 * time.Minute

type subagentIn struct {
	Prompt string `json:"prompt" validate:"required" jsonschema:"the task for the subagent"`
}

// subagentSource is the DynamicSource of agent tools.
type subagentSource struct {
	c *Coordinator

	mu     sync.Mutex
	agents map[*Tool]*agentFile
}

// Tool creates use_subagent_<name> from the agent file naming it.
func (src *subagentSource) Tool(name string, _ ToolEnv) *Tool {
	if name == UseSubagents {
		t := src.c.newUseSubagents()
		src.remember(t, genericAgent)
		return t
	}
	agent, ok := strings.CutPrefix(name, SubagentPrefix)
	if !ok || agent == "" {
		return nil
	}
	a, err := findAgent(src.c.cfg.Subagents.Dir, agent)
	if err != nil {
		return nil
	}
	t := NewTool(Spec[subagentIn]{
		Name:        name,
		Description: fmt.Sprintf("Run the %s subagent on a task: %s", a.Name, a.Description),
		Run: func(ctx context.Context, call *Call, in *subagentIn) (Result, error) {
			return src.c.runSubagent(ctx, call, a, in.Prompt)
		},
	})
	src.remember(t, a)
	return t
}

// remember records which agent a tool runs, for Valid.
func (src *subagentSource) remember(t *Tool, a *agentFile) {
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.agents == nil {
		src.agents = map[*Tool]*agentFile{}
	}
	src.agents[t] = a
}

// Valid reports whether the agent file behind a cached tool is unchanged;
// a changed or deleted file makes the tool be created again, or vanish.
func (src *subagentSource) Valid(t *Tool) bool {
	src.mu.Lock()
	a, ok := src.agents[t]
	src.mu.Unlock()
	if ok && (a == genericAgent || a.unchanged()) {
		return true
	}
	src.mu.Lock()
	delete(src.agents, t)
	src.mu.Unlock()
	return false
}

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

// runSubagent runs an agent in a child session of its own, with a token
// that admits it to that session only. Its output streams as tool.output;
// its stdout is the answer.
func (c *Coordinator) runSubagent(ctx context.Context, call *Call, a *agentFile, prompt string) (Result, error) {
	sc := c.cfg.Subagents
	if sc.Command == "" {
		return Result{}, Errorf(api.ToolCodeFailed, "no subagent runner is configured (subagents.command)")
	}
	child, err := c.sessions.Create(api.ModeAct, c.agentPermissions(a))
	if err != nil {
		return Result{}, err
	}
	defer func() { _ = c.sessions.Delete(child.ID) }()
	token, revoke := c.scoped.issue(child.ID)
	defer revoke()

	env := append(c.cfg.Commands.ChildEnv(), "TOOLGATE_URL="+sc.URL, "TOOLGATE_TOKEN="+token,
		"TOOLGATE_SESSION="+child.ID, "TOOLGATE_AGENT="+a.Name, "TOOLGATE_SYSTEM_PROMPT="+a.SystemPrompt)
	stdout := &cappedBuffer{max: 1 << 20}
	all := process.NewOutput(process.OutputLimits{})
	defer func() { _ = all.Close(); _ = all.Remove() }()
	timeout := time.Duration(sc.Timeout)
	if timeout <= 0 {
		timeout = defaultSubagentTimeout
	}
	dir := ""
	if c.workspace != nil {
		dir = c.workspace.Dir
	}
	res, err := process.Run(ctx, process.Options{Command: sc.Command, Dir: dir, Env: env, Stdin: strings.NewReader(prompt),
		Timeout: timeout, Output: all, OnChunk: func(stream, chunk string) {
			if stream == "stdout" {
				stdout.add(chunk)
			}
			call.Output(stream, chunk)
		}})
	switch {
	case err != nil:
		return Result{}, fmt.Errorf("cannot start the subagent runner: %w", err)
	case res.TimedOut:
		return Result{}, Errorf(api.ToolCodeFailed, "the %s subagent timed out after %s", a.Name, timeout)
	case res.ExitCode != 0 && !res.Cancelled:
		return Result{}, Errorf(api.ToolCodeFailed, "the %s subagent failed (exit status %d)", a.Name, res.ExitCode)
	}
	return TextResult(string(bytes.TrimSpace(stdout.bytes()))), nil
}

// subagentSources is the source of agent tools when an agent directory
// is configured.
func (c *Coordinator) subagentSources() []DynamicSource {
	if c.cfg.Subagents.Dir == "" {
		return nil
	}
	if _, err := os.Stat(c.cfg.Subagents.Dir); err != nil {
		c.logger.Warn("subagent directory", "err", err)
	}
	return []DynamicSource{&subagentSource{c: c}}
}
