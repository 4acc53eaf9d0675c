package coordinator

import (
	"time"

	"github.com/toolgate/toolgate/coordinator/filememory"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// The default of every setting of Config, in one place. A config leaves a
// setting at its default by leaving it out or writing 0; New fills each
// unset field from here (fillDefaults), so the rest of the coordinator
// reads effective values and names none of these constants
// (TestDefaultsNamedInOnePlace). A hook's time limit, per item of a list,
// is named here too (hookTimeout). Defaults owned by a lower
// package are named there: execute_command's and the network tools' in
// tool (DefaultCommandTimeout, DefaultWeb, ...), the sandbox limits in
// internal/sandbox.
const (
	defaultMaxSessions        = 256
	defaultSessionIdle        = time.Hour
	defaultEventLogSize       = 4096
	defaultEventLogBytes      = 8 << 20
	defaultMaxCallsPerSession = 10000
	// defaultMaxCallBytes keeps more than a model's context holds: a
	// repeated id comes from a retry of a recent message. A repeat of an
	// older call is answered from the store (result_dropped with the
	// memory store). 1 MB, not 4: a busy session held 4 MB of results
	// and its calls (BenchmarkManySessionsMemory).
	defaultMaxCallBytes    = 1 << 20
	defaultMaxConcurrency  = 10
	defaultMaxOpenMessages = 16
	defaultOpenMessageIdle = 10 * time.Minute
	// defaultApprovalTimeout bounds how long an approval may stay open.
	defaultApprovalTimeout = 10 * time.Minute
	defaultInputTimeout    = 30 * time.Minute
	// defaultLoopRepeats is Cline's threshold: the third identical call in
	// a row earns a warning.
	defaultLoopRepeats = 3
	// defaultHookTimeout is Claude Code's default.
	defaultHookTimeout     = 60 * time.Second
	defaultHookOutput      = 64 << 10
	defaultSubagentTimeout = 10 * time.Minute
)

// Defaults of WebFetchConfig and BrowserConfig: the network tools'
// contract (package tool) owns them, as handlers read them too.
const (
	DefaultWebFetchMaxBytes = tool.DefaultWebFetchMaxBytes
	DefaultWebFetchTimeout  = tool.DefaultWebFetchTimeout
	DefaultViewportWidth    = tool.DefaultViewportWidth
	DefaultViewportHeight   = tool.DefaultViewportHeight
	DefaultBrowserIdle      = tool.DefaultBrowserIdle
	DefaultBrowserAction    = tool.DefaultBrowserAction
)

// defaultCascadeTools: a failed command usually makes its siblings
// pointless.
var defaultCascadeTools = []string{"execute_command"}

// DefaultConfig is the configuration used when no file sets one: every
// setting at its default.
func DefaultConfig() Config {
	var c Config
	c.fillDefaults()
	return c
}

// fillDefaults sets every unset (zero or, where that means nothing,
// negative) setting to its default. A negative SessionIdleSeconds (never
// expire) or LoopGuardRepeats (no loop guard) is kept.
func (c *Config) fillDefaults() {
	orDefaultInt(&c.MaxSessions, defaultMaxSessions)
	if c.SessionIdleSeconds == 0 {
		c.SessionIdleSeconds = int(defaultSessionIdle / time.Second)
	}
	orDefaultInt(&c.EventLogSize, defaultEventLogSize)
	orDefaultInt(&c.EventLogBytes, defaultEventLogBytes)
	orDefaultInt(&c.MaxCallsPerSession, defaultMaxCallsPerSession)
	orDefaultInt(&c.MaxCallBytesPerSession, defaultMaxCallBytes)
	orDefaultInt(&c.MaxConcurrency, defaultMaxConcurrency)
	if c.CascadeTools == nil {
		c.CascadeTools = append([]string(nil), defaultCascadeTools...)
	}
	orDefaultInt(&c.MaxOpenMessages, defaultMaxOpenMessages)
	orDefaultInt(&c.OpenMessageIdleSeconds, int(defaultOpenMessageIdle/time.Second))
	orDefaultInt(&c.RevertMaxCount, filememory.DefaultRevertMaxCount)
	orDefaultInt(&c.RevertMaxBytes, filememory.DefaultRevertMaxBytes)

	orDefaultInt(&c.ApprovalTimeout, Duration(defaultApprovalTimeout))
	orDefaultInt(&c.InputTimeout, Duration(defaultInputTimeout))
	if c.LoopGuardRepeats == 0 {
		c.LoopGuardRepeats = defaultLoopRepeats
	}
	orDefaultInt(&c.Hooks.MaxOutputBytes, defaultHookOutput)
	orDefaultInt(&c.Subagents.Timeout, Duration(defaultSubagentTimeout))

	orDefaultInt(&c.Commands.DefaultTimeoutSeconds, int(tool.DefaultCommandTimeout/time.Second))
	orDefaultInt(&c.Commands.LongTimeoutSeconds, int(tool.LongCommandTimeout/time.Second))
	orDefaultInt(&c.Commands.MaxTimeoutSeconds, int(tool.MaxCommandTimeout/time.Second))
	orDefaultInt(&c.Commands.MaxOutputBytes, tool.DefaultMaxOutputBytes)
	orDefaultInt(&c.Commands.MaxSpillBytes, tool.DefaultMaxSpillBytes)
	orDefaultInt(&c.Commands.LoginTimeout, tool.DefaultLoginTimeout)

	orDefaultInt(&c.WebFetch.MaxBytes, DefaultWebFetchMaxBytes)
	orDefaultInt(&c.WebFetch.Timeout, Duration(DefaultWebFetchTimeout))
	if c.Browser.ViewportWidth <= 0 || c.Browser.ViewportHeight <= 0 {
		// The viewport is set as a pair or not at all.
		c.Browser.ViewportWidth, c.Browser.ViewportHeight = DefaultViewportWidth, DefaultViewportHeight
	}
	orDefaultInt(&c.Browser.IdleTimeout, Duration(DefaultBrowserIdle))
	orDefaultInt(&c.Browser.ActionTimeout, Duration(DefaultBrowserAction))
}

// hookTimeout is a hook's time limit when its spec sets none, applied
// per hook, where it runs (hooks.Options.DefaultTimeout), since hooks are
// a list.
func hookTimeout() time.Duration { return defaultHookTimeout }

// orDefaultInt sets *p to def unless it is positive.
func orDefaultInt[T ~int | ~int64](p *T, def T) {
	if *p <= 0 {
		*p = def
	}
}
