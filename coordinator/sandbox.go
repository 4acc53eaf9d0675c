package coordinator

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/internal/ignore"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// maxMasks bounds the ignored workspace paths one run masks; past it the
// run is refused rather than run with some ignored files readable.
const maxMasks = 20000

// SandboxInfo says which sandbox confines commands, for /healthz and
// /metrics.
func (c *Coordinator) SandboxInfo() sandbox.Info { return c.sandbox.Info() }

// Sandbox is the sandbox that confines what the coordinator starts.
func (c *Coordinator) Sandbox() *sandbox.Sandbox { return c.sandbox }

// confine says what a run started in dir may see: the workspace writable,
// toolgate's own files and every workspace path the ignore rules m
// exclude masked. The ignored paths are as they are now, for every run
// (maskCache lists them afresh when a directory or the rules changed),
// so files created since and edits of the ignore files both count.
func (c *Coordinator) confine(dir string, m *ignore.Matcher) (sandbox.Run, error) {
	if c.workspace == nil {
		return sandbox.Run{Workspace: dir, Dir: dir, Hide: c.ownFiles()}, nil
	}
	if dir == "" {
		dir = c.workspace.Dir
	}
	r := sandbox.Run{Workspace: c.workspace.Dir, Dir: dir, Hide: c.ownFiles(), ReadOnly: c.readOnlyFiles()}
	if c.sandbox.Mode() == sandbox.InForceOff || m == nil || m.Len() == 0 {
		return r, nil
	}
	ignored, err := c.masks.ignored(c.workspace, m)
	if err != nil {
		return r, err
	}
	r.Hide = append(r.Hide, ignored...)
	return r, nil
}

// confineMCP prepares the command of an MCP stdio server whose entry asks
// for the sandbox: the same confinement as a command run in dir (the
// workspace when ""), with the ignore rules in force when it starts.
func (c *Coordinator) confineMCP(argv, env []string, dir string) (*sandbox.Prepared, error) {
	r, err := c.confine(dir, c.ignoreMatcher())
	if err != nil {
		return nil, err
	}
	return c.sandbox.Prepare(argv, env, r)
}

// ownFiles are toolgate's config and state files: the config file, the
// MCP settings, the spilled outputs and the token file.
func (c *Coordinator) ownFiles() []string {
	var out []string
	for _, p := range c.cfg.ProtectedFiles {
		if filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	for _, p := range []string{c.cfg.MCPSettings, c.cfg.Commands.OutputDir} {
		if p != "" {
			out = append(out, p)
		}
	}
	return append(out, c.cfg.StateFiles...)
}

// readOnlyFiles are the workspace files a command may read but not
// change, beyond those the sandbox protects in every workspace
// (.clineignore, git hooks and config, shell start-up files): the extra
// ignore files, and the literal paths among protected_files and the
// protected defaults. A change to them would weaken the checks of later
// calls, or run code at the user's next git command or editor start.
func (c *Coordinator) readOnlyFiles() []string {
	var out []string
	for _, f := range c.cfg.IgnoreFiles {
		out = append(out, filepath.Join(c.workspace.Dir, f))
	}
	for _, p := range append(slices.Clone(policy.DefaultProtected), c.cfg.ProtectedFiles...) {
		if filepath.IsAbs(p) || p == ".git" || strings.ContainsAny(p, `*?[\!`) {
			continue // masked as toolgate's own; the sandbox's; a pattern
		}
		out = append(out, filepath.Join(c.workspace.Dir, strings.TrimPrefix(p, "/")))
	}
	return out
}

// errTooManyMasks refuses a run whose ignored paths are too many to mask.
var errTooManyMasks = errors.New("too many ignored files to mask")

// sandboxPreview says what a command's sandbox allows, for approvals.
func (c *Coordinator) sandboxPreview(background bool) *api.SandboxPreview {
	info := c.sandbox.Info()
	p := &api.SandboxPreview{Mode: info.Mode, Network: info.Network, Background: background}
	if c.workspace != nil {
		p.Writable = append(p.Writable, c.workspace.Dir)
	}
	if info.Mode == sandbox.InForceBwrap || info.Mode == sandbox.InForceLandlock {
		p.Writable = append(p.Writable, c.sandbox.Writable()...)
	}
	p.Summary = sandboxSummary(info, p.Writable)
	return p
}

// sandboxSummary is the one line an approval shows about the sandbox.
func sandboxSummary(info sandbox.Info, writable []string) string {
	switch info.Mode {
	case sandbox.InForceOff:
		return "Runs without a sandbox (sandbox.mode is off): it can do anything toolgate's user can."
	case sandbox.InForceUnavailable:
		return "Will be refused: no sandbox is available (" + info.Reason + ")."
	}
	net := "no network"
	switch {
	case info.Network == "on":
		net = "network allowed"
	case info.Mode == sandbox.InForceBwrap:
		net = "no network beyond the session's own loopback, shared with its jobs; HTTP(S) through toolgate's proxy " +
			allowedHosts(info.NetworkAllow)
	case len(info.NetworkAllow) > 0:
		net = "network only to " + strings.Join(info.NetworkAllow, ", ") + " (HTTP(S) through toolgate's proxy)"
	}
	return fmt.Sprintf("Sandboxed (%s): writes only to %s and a private /tmp; %s; credentials and ignored files hidden.",
		info.Mode, strings.Join(writable, ", "), net)
}

// allowedHosts names the hosts of sandbox.network_allow for a summary.
func allowedHosts(allow []string) string {
	if len(allow) == 0 {
		return "to hosts the user approves"
	}
	return "to " + strings.Join(allow, ", ") + " and to hosts the user approves"
}

// sandboxHint is the line added to a failed command's result when its
// output shows the sandbox refusing something, "" otherwise.
func (c *Coordinator) sandboxHint(output string) string {
	info := c.sandbox.Info()
	if info.Mode != sandbox.InForceBwrap && info.Mode != sandbox.InForceLandlock {
		return ""
	}
	switch {
	case strings.Contains(output, "Read-only file system"), strings.Contains(output, "Permission denied") && info.Mode == sandbox.InForceLandlock:
		return "Note: the sandbox lets commands write only inside the workspace and /tmp, and not to the workspace paths " +
			"a deny rule keeps from editing or toolgate protects (.clineignore, .git/hooks, .git/config and the like). " +
			"If a write elsewhere is needed (a cache, say), the user can add its path to sandbox.writable in toolgate's config."
	case info.Network == "on":
		return ""
	case info.Mode == sandbox.InForceBwrap && containsAny(output, "CONNECT tunnel failed, response 403", "toolgate refused to load"):
		return "Note: toolgate's network proxy refused the host (its reason is in the proxy's 403 answer; curl -v shows it). " +
			"Hosts that no rule allows are put to the user; an allow rule network(domain:HOST) lets one through for good."
	case info.Mode == sandbox.InForceBwrap && containsAny(output, "Network is unreachable", "Could not resolve host",
		"Temporary failure in name resolution", "Name or service not known", "getaddrinfo", "ENETUNREACH",
		"Couldn't connect to server", "Connection refused", "ECONNREFUSED"):
		return "Note: commands have no network beyond their session's own: localhost is the session's loopback " +
			"(servers its background jobs started), not the host's. HTTP(S) clients reach outside hosts through toolgate's proxy " +
			"(HTTP_PROXY is set), each host by the user's approval or an allow rule network(domain:HOST); a program that " +
			`ignores HTTP_PROXY cannot. The user can also set "sandbox": {"network": "on"} in toolgate's config.`
	case containsAny(output, "Network is unreachable", "Could not resolve host", "Temporary failure in name resolution",
		"Name or service not known", "getaddrinfo", "Couldn't connect to server", "Connection refused", "ECONNREFUSED", "ENETUNREACH"):
		return `Note: the sandbox has no network. If this command needs it, the user can set "sandbox": {"network": "on"} in toolgate's config.`
	}
	return ""
}

func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// registerSandboxInfo exports toolgate_sandbox_info{mode}: 1 for the mode
// in force, so a dashboard or an alert sees a server running unconfined.
func registerSandboxInfo(reg prometheus.Registerer, info sandbox.Info) {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "toolgate_sandbox_info", Help: "The sandbox commands run in: 1 for the mode in force (bwrap, landlock, off, unavailable).",
	}, []string{"mode"})
	reg.MustRegister(g)
	for _, m := range []string{sandbox.InForceBwrap, sandbox.InForceLandlock, sandbox.InForceOff, sandbox.InForceUnavailable} {
		g.WithLabelValues(m)
	}
	g.WithLabelValues(info.Mode).Set(1)
}
