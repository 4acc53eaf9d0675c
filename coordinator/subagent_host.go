package coordinator

import (
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/subagents"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// The names of the subagent tools, as policy rules and the pipeline
// match them (coordinator/subagents builds the tools).
const (
	// UseSubagents is the tool that runs up to five generic, read-only
	// subagents at once.
	UseSubagents = subagents.UseSubagents
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

// startSubagents builds the source of agent tools when an agent directory
// is configured (it starts watching that directory) and lists it among
// the dynamic sources.
func (c *Coordinator) startSubagents() []DynamicSource {
	sc := c.cfg.Subagents
	c.agents = subagents.New(subagentHost{c}, subagents.Config{Dir: sc.Dir, Command: sc.Command, URL: sc.URL,
		Headers: sc.Headers, ToolgateURL: sc.ToolgateURL, Timeout: time.Duration(sc.Timeout),
		Commands: &c.cfg.Commands, Logger: c.logger})
	if c.agents == nil {
		return nil
	}
	return []DynamicSource{c.agents}
}

// ScopedSession reports the one session a subagent's scoped token admits
// to. The server lets such a token reach only that session's message and
// call routes; it may not change the session's rules or decide approvals.
func (c *Coordinator) ScopedSession(token string) (string, bool) {
	return c.agents.ScopedSession(token)
}

// subagentHost is the coordinator as a subagent run sees it.
type subagentHost struct{ c *Coordinator }

// ToolNames lists the registry's tools, which an agent is denied unless
// its file lists them.
func (h subagentHost) ToolNames() []string { return h.c.registry.Names() }

// StartChild creates the child session a subagent's calls run in.
func (h subagentHost) StartChild(perms api.Permissions) (string, func(), error) {
	child, err := h.c.sessions.Create(api.ModeAct, perms)
	if err != nil {
		return "", nil, err
	}
	return child.ID, func() { _ = h.c.sessions.Delete(child.ID) }, nil
}

// Confine confines a command runner as a command of the workspace: the
// workspace its directory, with the ignore rules in force.
func (h subagentHost) Confine() (*sandbox.Sandbox, sandbox.Run, error) {
	dir := ""
	if h.c.workspace != nil {
		dir = h.c.workspace.Dir
	}
	r, err := h.c.confine(dir, h.c.ignoreMatcher())
	return h.c.sandbox, r, err
}
