package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/telemetry"
	"github.com/toolgate/toolgate/server"
)

// configView is the config file's layout: each key points at the field
// of fileConfig it sets. The runtime types keep their own shape (the
// coordinator's Config is one flat struct, and several limits count whole
// seconds); the file groups them by concern and writes every duration as
// a Go duration string such as "30s" or "10m".
type configView struct {
	Server    *server.Config              `json:"server"`
	Policy    policyView                  `json:"policy"`
	Hooks     *hooks.Config               `json:"hooks"`
	Subagents *coordinator.SubagentConfig `json:"subagents"`
	MCP       mcpView                     `json:"mcp"`
	Sandbox   sandboxView                 `json:"sandbox"`
	Tools     toolsView                   `json:"tools"`
	Sessions  sessionsView                `json:"sessions"`
	Messages  messagesView                `json:"messages"`
	Store     *storeConfig                `json:"store"`
	Telemetry *telemetry.Config           `json:"telemetry"`
}

// policyView: who may do what, and what always asks.
type policyView struct {
	Permissions *api.Permissions `json:"permissions"`
	// allow_all, forbid_session_allow, approval_timeout, ignore_files,
	// protected_files and whatever switch the policy gains.
	*coordinator.PolicyConfig
	RequireReadBeforeEdit *bool `json:"require_read_before_edit"`
}

// mcpView: the MCP servers.
type mcpView struct {
	Settings *string `json:"settings"`
}

// sandboxView: the sandbox section, its CPU limit a duration.
type sandboxView struct {
	*sandbox.Config
	MaxCPU durationSeconds `json:"max_cpu"`
}

// toolsView: how the tools behave.
type toolsView struct {
	Commands             commandsView                `json:"commands"`
	WebFetch             *coordinator.WebFetchConfig `json:"web_fetch"`
	Browser              *coordinator.BrowserConfig  `json:"browser"`
	InputTimeout         *coordinator.Duration       `json:"input_timeout"`
	LoopGuardRepeats     *int                        `json:"loop_guard_repeats"`
	OmitFinalFileContent *bool                       `json:"omit_final_file_content"`
	RevertMaxCount       *int                        `json:"revert_max_count"`
	RevertMaxBytes       *int64                      `json:"revert_max_bytes"`
}

// commandsView: execute_command, its timeouts durations.
type commandsView struct {
	*tool.CommandConfig
	DefaultTimeout durationSeconds `json:"default_timeout"`
	LongTimeout    durationSeconds `json:"long_timeout"`
	MaxTimeout     durationSeconds `json:"max_timeout"`
}

// sessionsView: how many sessions live, how long, and what each keeps.
type sessionsView struct {
	Max           *int            `json:"max"`
	Idle          durationSeconds `json:"idle"`
	EventLogSize  *int            `json:"event_log_size"`
	EventLogBytes *int            `json:"event_log_bytes"`
	MaxCalls      *int            `json:"max_calls"`
	MaxCallBytes  *int            `json:"max_call_bytes"`
}

// messagesView: how a message's calls are scheduled.
type messagesView struct {
	MaxConcurrency *int            `json:"max_concurrency"`
	CascadeTools   *[]string       `json:"cascade_tools"`
	MaxOpen        *int            `json:"max_open"`
	OpenIdle       durationSeconds `json:"open_idle"`
}

// newConfigView points every key of the file at its field in cfg.
func newConfigView(cfg *fileConfig) *configView {
	c := &cfg.Coordinator
	return &configView{
		Server:    &cfg.Server,
		Policy:    policyView{Permissions: &c.Permissions, PolicyConfig: &c.PolicyConfig, RequireReadBeforeEdit: &c.RequireReadBeforeEdit},
		Hooks:     &c.Hooks,
		Subagents: &c.Subagents,
		MCP:       mcpView{Settings: &c.MCPSettings},
		Sandbox:   sandboxView{Config: &c.Sandbox, MaxCPU: durationSeconds{&c.Sandbox.MaxCPUSeconds}},
		Tools: toolsView{
			Commands: commandsView{CommandConfig: &c.Commands, DefaultTimeout: durationSeconds{&c.Commands.DefaultTimeoutSeconds},
				LongTimeout: durationSeconds{&c.Commands.LongTimeoutSeconds}, MaxTimeout: durationSeconds{&c.Commands.MaxTimeoutSeconds}},
			WebFetch: &c.WebFetch, Browser: &c.Browser, InputTimeout: &c.InputTimeout, LoopGuardRepeats: &c.LoopGuardRepeats,
			OmitFinalFileContent: &c.OmitFinalFileContent, RevertMaxCount: &c.RevertMaxCount, RevertMaxBytes: &c.RevertMaxBytes,
		},
		Sessions: sessionsView{Max: &c.MaxSessions, Idle: durationSeconds{&c.SessionIdleSeconds}, EventLogSize: &c.EventLogSize,
			EventLogBytes: &c.EventLogBytes, MaxCalls: &c.MaxCallsPerSession, MaxCallBytes: &c.MaxCallBytesPerSession},
		Messages: messagesView{MaxConcurrency: &c.MaxConcurrency, CascadeTools: &c.CascadeTools, MaxOpen: &c.MaxOpenMessages,
			OpenIdle: durationSeconds{&c.OpenMessageIdleSeconds}},
		Store:     &cfg.Store,
		Telemetry: &cfg.Telemetry,
	}
}

// durationSeconds reads a duration string into a field that counts whole
// seconds. A negative duration is kept (it means "never" or "no limit"
// where the field says so).
type durationSeconds struct{ seconds *int }

// UnmarshalJSON reads "30s", "5m" or "-1s".
func (d durationSeconds) UnmarshalJSON(b []byte) error {
	var v coordinator.Duration
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	t := time.Duration(v)
	if t%time.Second != 0 {
		return fmt.Errorf("%s is not a whole number of seconds", t)
	}
	*d.seconds = int(t / time.Second)
	return nil
}
