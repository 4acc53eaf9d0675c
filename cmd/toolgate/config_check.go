package main

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/server"
)

// checkConfig checks every value of the configuration at start-up and
// appends a problem, named by the key's path in the file, for each bad
// one. Zero means "the default" for every number and duration; a negative
// value is only accepted where the key says what it means.
func checkConfig(cfg *fileConfig, problems []string) []string {
	p := &problemList{list: problems}
	checkServer(p, &cfg.Server)
	checkPolicy(p, &cfg.Coordinator)
	checkHooks(p, &cfg.Coordinator.Hooks)
	checkSubagents(p, &cfg.Coordinator.Subagents)
	checkTools(p, &cfg.Coordinator)
	checkLimits(p, &cfg.Coordinator)
	if err := cfg.Coordinator.Sandbox.Check(); err != nil {
		for _, s := range strings.Split(err.Error(), "; ") {
			p.add("", "%s", s)
		}
	}
	if err := cfg.Store.check(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			p.add("", "%s", line)
		}
	}
	switch cfg.Telemetry.OTLPProtocol {
	case "", "http/protobuf", "http", "grpc":
	default:
		p.add("telemetry.otlp_protocol", "%q is not \"http/protobuf\" or \"grpc\"", cfg.Telemetry.OTLPProtocol)
	}
	if e := cfg.Telemetry.OTLPEndpoint; e != "" {
		checkURL(p, "telemetry.otlp_endpoint", e)
	}
	return p.list
}

// problemList collects problems, each prefixed by its key's path.
type problemList struct{ list []string }

func (p *problemList) add(key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if key != "" {
		msg = key + ": " + msg
	}
	p.list = append(p.list, msg)
}

// addErrs adds each line of err (errors.Join joins with newlines).
func (p *problemList) addErrs(section string, err error) {
	if err == nil {
		return
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		p.add("", "%s.%s", section, line)
	}
}

// notNegative refuses a negative number where only 0 (the default) and
// positive values mean something.
func notNegative[T ~int | ~int64](p *problemList, key string, v T) {
	if v < 0 {
		p.add(key, "must not be negative (0 means the default)")
	}
}

func checkServer(p *problemList, s *server.Config) {
	p.addErrs("server", server.CheckHosts(s.AllowedHosts))
	p.addErrs("server", server.CheckOrigins(s.AllowedOrigins))
	notNegative(p, "server.max_body_bytes", s.MaxBodyBytes)
	notNegative(p, "server.read_timeout", s.ReadTimeout)
	notNegative(p, "server.sse_stall_timeout", s.SSEStallTimeout)
}

func checkPolicy(p *problemList, c *coordinator.Config) {
	if err := policy.ValidatePermissions(c.Permissions); err != nil {
		var ae *api.Error
		if errors.As(err, &ae) && len(ae.Fields) > 0 {
			keys := make([]string, 0, len(ae.Fields))
			for k := range ae.Fields {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p.add("policy."+k, "%s", ae.Fields[k])
			}
		} else {
			p.add("policy.permissions", "%v", err)
		}
	}
	notNegative(p, "policy.approval_timeout", c.ApprovalTimeout)
	for i, f := range c.IgnoreFiles {
		if f == "" || filepath.IsAbs(f) || strings.HasPrefix(filepath.Clean(f), "..") {
			p.add(fmt.Sprintf("policy.ignore_files[%d]", i), "%q must be a path inside the workspace, relative to it", f)
		}
	}
	for i, f := range c.ProtectedFiles {
		if strings.TrimSpace(f) == "" {
			p.add(fmt.Sprintf("policy.protected_files[%d]", i), "must not be empty")
		}
	}
}

func checkHooks(p *problemList, h *hooks.Config) {
	notNegative(p, "hooks.max_output_bytes", h.MaxOutputBytes)
	for _, ev := range []struct {
		name     string
		matchers []hooks.Matcher
	}{{hooks.PreToolUse, h.PreToolUse}, {hooks.PostToolUse, h.PostToolUse}} {
		for i, m := range ev.matchers {
			for j, spec := range m.Hooks {
				key := fmt.Sprintf("hooks.%s[%d].hooks[%d]", ev.name, i, j)
				switch spec.Type {
				case "", "command":
					if strings.TrimSpace(spec.Command) == "" {
						p.add(key+".command", "a command hook needs a command")
					}
				case "http":
					if spec.URL == "" {
						p.add(key+".url", "an http hook needs a url")
					} else {
						checkURL(p, key+".url", spec.URL)
					}
				default:
					p.add(key+".type", "%q is not \"command\" or \"http\"", spec.Type)
				}
				if spec.Timeout < 0 {
					p.add(key+".timeout", "must not be negative (seconds; 0 means 60)")
				}
			}
		}
	}
}

func checkSubagents(p *problemList, s *coordinator.SubagentConfig) {
	if s.Command != "" && s.URL != "" {
		p.add("subagents", "command and url both set: a subagent runs through one of them")
	}
	if s.URL != "" {
		checkURL(p, "subagents.url", s.URL)
	}
	if s.ToolgateURL != "" {
		checkURL(p, "subagents.toolgate_url", s.ToolgateURL)
	}
	notNegative(p, "subagents.timeout", s.Timeout)
}

func checkTools(p *problemList, c *coordinator.Config) {
	cmd := &c.Commands
	notNegative(p, "tools.commands.default_timeout", cmd.DefaultTimeoutSeconds)
	notNegative(p, "tools.commands.long_timeout", cmd.LongTimeoutSeconds)
	notNegative(p, "tools.commands.max_timeout", cmd.MaxTimeoutSeconds)
	notNegative(p, "tools.commands.max_output_bytes", cmd.MaxOutputBytes)
	for i, pat := range cmd.PassEnv {
		if _, err := path.Match(pat, ""); err != nil || pat == "" {
			p.add(fmt.Sprintf("tools.commands.pass_env[%d]", i), "%q is not a name pattern", pat)
		}
	}
	for _, name := range sortedKeys(cmd.Env) {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			p.add("tools.commands.env", "%q is not a variable name", name)
		}
	}
	notNegative(p, "tools.web_fetch.max_bytes", c.WebFetch.MaxBytes)
	notNegative(p, "tools.web_fetch.timeout", c.WebFetch.Timeout)
	b := &c.Browser
	notNegative(p, "tools.browser.viewport_width", b.ViewportWidth)
	notNegative(p, "tools.browser.viewport_height", b.ViewportHeight)
	notNegative(p, "tools.browser.idle_timeout", b.IdleTimeout)
	notNegative(p, "tools.browser.action_timeout", b.ActionTimeout)
	notNegative(p, "tools.input_timeout", c.InputTimeout)
	notNegative(p, "tools.revert_max_count", c.RevertMaxCount)
	notNegative(p, "tools.revert_max_bytes", c.RevertMaxBytes)
}

func checkLimits(p *problemList, c *coordinator.Config) {
	notNegative(p, "sessions.max", c.MaxSessions)
	notNegative(p, "sessions.event_log_size", c.EventLogSize)
	notNegative(p, "sessions.event_log_bytes", c.EventLogBytes)
	notNegative(p, "sessions.max_calls", c.MaxCallsPerSession)
	notNegative(p, "sessions.max_call_bytes", c.MaxCallBytesPerSession)
	notNegative(p, "messages.max_concurrency", c.MaxConcurrency)
	notNegative(p, "messages.max_open", c.MaxOpenMessages)
	notNegative(p, "messages.open_idle", c.OpenMessageIdleSeconds)
	for i, name := range c.CascadeTools {
		if strings.TrimSpace(name) == "" {
			p.add(fmt.Sprintf("messages.cascade_tools[%d]", i), "must name a tool")
		}
	}
}

// checkURL refuses anything but an absolute http(s) URL.
func checkURL(p *problemList, key, raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.add(key, "%q is not an http:// or https:// URL", raw)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
