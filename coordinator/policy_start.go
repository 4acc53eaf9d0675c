package coordinator

import (
	"os"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/internal/ignore"
)

// startPolicy parses the managed rules and starts watching the ignore
// files. A managed rule that does not parse is logged and, failing closed,
// makes every call ask: the config file is validated at start-up (see
// ValidatePermissions), so this only catches a programmer error.
func (c *Coordinator) startPolicy(o Options) {
	managed, err := policy.ManagedRules(c.cfg.Permissions)
	if err != nil {
		c.logger.Error("invalid managed permission rule; every call will ask", "err", err)
	}
	c.policy = policy.New(policy.Options{
		Switches: policy.Switches{AllowAll: c.cfg.AllowAll, ForbidSessionAllow: c.cfg.ForbidSessionAllow,
			AllowBypassPermissions: c.cfg.AllowBypassPermissions},
		Managed:        managed,
		MCPAutoApprove: o.MCPAutoApprove,
		Workspace:      o.Workspace,
		IgnoreFiles:    c.cfg.IgnoreFiles,
		ProtectedFiles: c.cfg.ProtectedFiles,
	})
	if o.Workspace != nil {
		c.startIgnore(o)
	}
}

// unreadableIgnore is the rule in force when no watcher starts: every
// path is excluded, so a call that touches the workspace is refused
// rather than run with no ignore rules at all.
const unreadableIgnore = "toolgate (the ignore files could not be loaded)"

// startIgnore loads the ignore files and keeps them current, trying the
// ways in order until one starts: file notifications, then polling the
// files' stamps on every call. It fails closed: when no way starts, every
// workspace path is refused.
func (c *Coordinator) startIgnore(o Options) {
	watchers := o.ignoreWatchers
	if watchers == nil {
		watchers = []func(*os.Root, ...string) (*ignore.Watcher, error){ignore.NewWatcher, ignore.NewPollingWatcher}
	}
	for i, start := range watchers {
		w, err := start(o.Workspace.Root, c.cfg.IgnoreFiles...)
		if err != nil {
			c.logger.Error("cannot keep the ignore files current this way; trying the next", "way", i, "err", err)
			continue
		}
		if i > 0 {
			c.logger.Warn("ignore files are polled on every call instead of watched")
		}
		if err := w.Err(); err != nil {
			c.logger.Warn("ignore files", "err", err)
		}
		c.ignore = w
		return
	}
	c.logger.Error("cannot load the ignore files; every call that touches the workspace is refused")
	c.ignoreFixed = ignore.NewMatcher(ignore.ParseRules(unreadableIgnore, "", []byte("*\n")))
}

// CheckSessionPermissions validates rules a client gives a session: their
// syntax, tool names some dialect has, and no allow rules when the
// managed policy forbids them.
func (c *Coordinator) CheckSessionPermissions(p api.Permissions) error {
	if err := policy.ValidatePermissions(p); err != nil {
		return err
	}
	if err := c.CheckRuleTools(p); err != nil {
		return err
	}
	if c.cfg.ForbidSessionAllow && len(p.Allow) > 0 {
		return &api.Error{Code: api.CodeValidation, Message: "the managed policy forbids session allow rules",
			Fields: map[string]string{"permissions.allow": "must be empty: forbid_session_allow is set"}}
	}
	return nil
}

// CheckMode validates a mode a client asks a session to take
// (policy.Policy.CheckMode): a known mode, and bypassPermissions only when
// the managed policy allows it.
func (c *Coordinator) CheckMode(m api.Mode) error { return c.policy.CheckMode(m) }
