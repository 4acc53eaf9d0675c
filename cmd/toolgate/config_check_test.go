package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "toolgate.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigRejectsEveryBadField: each rejected key stops start-up with a
// problem that names the key's path in the file.
func TestConfigRejectsEveryBadField(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"not JSON", `{"policy": `, "not valid JSON"},
		{"not an object", `[1]`, "must hold a JSON object"},
		{"unknown section", `{"polcy": {}}`, "polcy: unknown key"},
		{"unknown key", `{"tools": {"commands": {"default_timeot": "1s"}}}`, "tools.commands.default_timeot: unknown key"},
		{"unknown key in a list", `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"command": "x"}]}, {"matcher": "*", "hook": []}]}}`, "hooks.PreToolUse[1].hook: unknown key"},
		{"unknown key in a nested list", `{"hooks": {"PostToolUse": [{"hooks": [{"command": "x", "timeout_ms": 5}]}]}}`, "hooks.PostToolUse[0].hooks[0].timeout_ms: unknown key"},
		{"wrong type", `{"sessions": {"max": "many"}}`, "sessions.max: want a whole number, got a JSON string"},
		{"not a duration", `{"policy": {"approval_timeout": "ten minutes"}}`, "policy.approval_timeout"},
		{"duration as a number", `{"tools": {"input_timeout": 30}}`, "tools.input_timeout: duration must be a string"},
		{"seconds not whole", `{"sessions": {"idle": "1500ms"}}`, "sessions.idle: 1.5s is not a whole number of seconds"},
		{"legacy key and its new name", `{"policy": {"max_sessions": 3}, "sessions": {"max": 4}}`, "policy.max_sessions: also set as sessions.max"},
		{"legacy seconds not a number", `{"policy": {"session_idle_seconds": "60"}}`, "policy.session_idle_seconds: want a number of seconds"},
		{"allowed_hosts", `{"server": {"allowed_hosts": ["http://x"]}}`, "server.allowed_hosts"},
		{"allowed_origins", `{"server": {"allowed_origins": ["*"]}}`, "server.allowed_origins"},
		{"allowed_origins not an origin", `{"server": {"allowed_origins": ["example.com"]}}`, "server.allowed_origins"},
		{"max_body_bytes", `{"server": {"max_body_bytes": -1}}`, "server.max_body_bytes: must not be negative"},
		{"read_timeout", `{"server": {"read_timeout": "-1s"}}`, "server.read_timeout: must not be negative"},
		{"sse_stall_timeout", `{"server": {"sse_stall_timeout": "-1s"}}`, "server.sse_stall_timeout: must not be negative"},
		{"permissions", `{"policy": {"permissions": {"deny": ["execute_command(rm"]}}}`, "policy.permissions.deny[0]"},
		{"permissions allow", `{"policy": {"permissions": {"allow": ["read_file()"]}}}`, "policy.permissions.allow[0]"},
		{"permissions ask", `{"policy": {"permissions": {"ask": ["(x)"]}}}`, "policy.permissions.ask[0]"},
		{"ignore_files empty", `{"policy": {"ignore_files": [""]}}`, "policy.ignore_files[0]"},
		{"approval_timeout", `{"policy": {"approval_timeout": "-1m"}}`, "policy.approval_timeout: must not be negative"},
		{"ignore_files absolute", `{"policy": {"ignore_files": ["/etc/x"]}}`, "policy.ignore_files[0]"},
		{"ignore_files outside", `{"policy": {"ignore_files": ["../x"]}}`, "policy.ignore_files[0]"},
		{"protected_files empty", `{"policy": {"protected_files": [" "]}}`, "policy.protected_files[0]: must not be empty"},
		{"hook max_output_bytes", `{"hooks": {"max_output_bytes": -1}}`, "hooks.max_output_bytes: must not be negative"},
		{"hook without command", `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command"}]}]}}`, "hooks.PreToolUse[0].hooks[0].command"},
		{"http hook without url", `{"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "http"}]}]}}`, "hooks.PostToolUse[0].hooks[0].url: an http hook needs a url"},
		{"http hook bad url", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "ftp://x"}]}]}}`, "hooks.PreToolUse[0].hooks[0].url"},
		{"hook type", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "command": "x"}]}]}}`, "hooks.PreToolUse[0].hooks[0].type"},
		{"hook timeout", `{"hooks": {"PreToolUse": [{"hooks": [{"command": "x", "timeout": -5}]}]}}`, "hooks.PreToolUse[0].hooks[0].timeout"},
		{"subagents command and url", `{"subagents": {"command": "claude", "url": "http://127.0.0.1:1"}}`, "subagents: command and url both set"},
		{"subagents url", `{"subagents": {"url": "127.0.0.1:1"}}`, "subagents.url"},
		{"subagents toolgate_url", `{"subagents": {"toolgate_url": "toolgate:8080"}}`, "subagents.toolgate_url"},
		{"subagents timeout", `{"subagents": {"timeout": "-1s"}}`, "subagents.timeout: must not be negative"},
		{"commands default_timeout", `{"tools": {"commands": {"default_timeout": "-1s"}}}`, "tools.commands.default_timeout: must not be negative"},
		{"commands long_timeout", `{"tools": {"commands": {"long_timeout": "-1s"}}}`, "tools.commands.long_timeout: must not be negative"},
		{"commands max_timeout", `{"tools": {"commands": {"max_timeout": "-1s"}}}`, "tools.commands.max_timeout: must not be negative"},
		{"commands max_output_bytes", `{"tools": {"commands": {"max_output_bytes": -1}}}`, "tools.commands.max_output_bytes: must not be negative"},
		{"commands pass_env", `{"tools": {"commands": {"pass_env": ["AWS_["]}}}`, "tools.commands.pass_env[0]"},
		{"commands env", `{"tools": {"commands": {"env": {"A=B": "c"}}}}`, "tools.commands.env"},
		{"web_fetch allow_addresses", `{"tools": {"web_fetch": {"allow_addresses": ["localhost:3000"]}}}`, "tools.web_fetch.allow_addresses"},
		{"web_fetch max_bytes", `{"tools": {"web_fetch": {"max_bytes": -1}}}`, "tools.web_fetch.max_bytes: must not be negative"},
		{"web_fetch timeout", `{"tools": {"web_fetch": {"timeout": "-2s"}}}`, "tools.web_fetch.timeout: must not be negative"},
		{"browser viewport_width", `{"tools": {"browser": {"viewport_width": -1, "viewport_height": 600}}}`, "tools.browser.viewport_width: must not be negative"},
		{"browser viewport_height", `{"tools": {"browser": {"viewport_width": 800, "viewport_height": -1}}}`, "tools.browser.viewport_height: must not be negative"},
		{"browser idle_timeout", `{"tools": {"browser": {"idle_timeout": "-1s"}}}`, "tools.browser.idle_timeout: must not be negative"},
		{"browser action_timeout", `{"tools": {"browser": {"action_timeout": "-1s"}}}`, "tools.browser.action_timeout: must not be negative"},
		{"input_timeout", `{"tools": {"input_timeout": "-1s"}}`, "tools.input_timeout: must not be negative"},
		{"revert_max_count", `{"tools": {"revert_max_count": -1}}`, "tools.revert_max_count: must not be negative"},
		{"revert_max_bytes", `{"tools": {"revert_max_bytes": -1}}`, "tools.revert_max_bytes: must not be negative"},
		{"sessions max", `{"sessions": {"max": -1}}`, "sessions.max: must not be negative"},
		{"sessions event_log_size", `{"sessions": {"event_log_size": -1}}`, "sessions.event_log_size: must not be negative"},
		{"sessions event_log_bytes", `{"sessions": {"event_log_bytes": -1}}`, "sessions.event_log_bytes: must not be negative"},
		{"sessions max_calls", `{"sessions": {"max_calls": -1}}`, "sessions.max_calls: must not be negative"},
		{"messages max_concurrency", `{"messages": {"max_concurrency": -1}}`, "messages.max_concurrency: must not be negative"},
		{"messages max_open", `{"messages": {"max_open": -1}}`, "messages.max_open: must not be negative"},
		{"messages open_idle", `{"messages": {"open_idle": "-1s"}}`, "messages.open_idle: must not be negative"},
		{"messages cascade_tools", `{"messages": {"cascade_tools": [""]}}`, "messages.cascade_tools[0]: must name a tool"},
		{"sandbox mode", `{"sandbox": {"mode": "jail"}}`, "sandbox.mode"},
		{"sandbox network", `{"sandbox": {"network": "maybe"}}`, "sandbox.network"},
		{"sandbox network_allow with the network on", `{"sandbox": {"network": "on", "network_allow": ["example.com"]}}`, "sandbox.network_allow applies with the network off"},
		{"sandbox network_allow entry", `{"sandbox": {"network_allow": ["https://example.com/"]}}`, "sandbox.network_allow entry"},
		{"sandbox writable", `{"sandbox": {"writable": ["cache"]}}`, "sandbox path \"cache\""},
		{"sandbox deny_read", `{"sandbox": {"deny_read": ["secrets"]}}`, "sandbox path \"secrets\""},
		{"sandbox max_cpu", `{"sandbox": {"max_cpu": "0.5s"}}`, "sandbox.max_cpu: 500ms is not a whole number of seconds"},
		{"store mode", `{"store": {"mode": "disk"}}`, "store.mode"},
		{"store retention", `{"store": {"retention": "a month"}}`, "store.retention"},
		{"telemetry protocol", `{"telemetry": {"otlp_protocol": "udp"}}`, "telemetry.otlp_protocol"},
		{"telemetry endpoint", `{"telemetry": {"otlp_endpoint": "collector:4318"}}`, "telemetry.otlp_endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadConfig(writeConfig(t, tt.body))
			if err == nil {
				t.Fatalf("%s accepted, want an error naming %q", tt.body, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
		})
	}
}

// TestConfigListsEveryProblem: a file with several bad keys is refused
// with all of them, not the first only.
func TestConfigListsEveryProblem(t *testing.T) {
	t.Run("two bad keys of one section", func(t *testing.T) {
		_, err := loadConfig(writeConfig(t, `{"store": {"mode": "disk", "retention": "a month"}}`))
		if err == nil || !strings.Contains(err.Error(), "store.mode") || !strings.Contains(err.Error(), "store.retention") ||
			!strings.Contains(err.Error(), "2 problems") {
			t.Errorf("error = %v, want both store.mode and store.retention", err)
		}
	})
	body := `{"server": {"max_body_bytes": -1}, "policy": {"approval_timeout": "soon", "bogus": 1},
		"tools": {"commands": {"max_timeout": "-1s"}}, "sessions": {"max": "x"}, "sandbox": {"mode": "jail"},
		"telemetry": {"otlp_protocol": "udp"}}`
	_, err := loadConfig(writeConfig(t, body))
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, key := range []string{"server.max_body_bytes", "policy.approval_timeout", "policy.bogus", "tools.commands.max_timeout",
		"sessions.max", "sandbox.mode", "telemetry.otlp_protocol"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error does not list %s:\n%v", key, err)
		}
	}
	if !strings.Contains(err.Error(), "7 problems") {
		t.Errorf("error does not count 7 problems:\n%v", err)
	}
}

// TestConfigLegacyLayoutLoads: a file in the older layout (everything
// under "policy", durations in *_seconds) gives the same configuration as
// the current layout, with a warning for every old key.
func TestConfigLegacyLayoutLoads(t *testing.T) {
	legacy := `{"policy": {"allow_all": true, "permissions": {"deny": ["execute_command(rm:*)"]},
		"hooks": {"fail_closed": true, "PreToolUse": [{"matcher": "write_to_file", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}, "subagents": {"timeout": "2m"}, "mcp_settings": "mcp.json",
		"sandbox": {"mode": "off", "max_cpu_seconds": 90},
		"commands": {"default_timeout_seconds": 20, "long_timeout_seconds": 200, "max_timeout_seconds": 2000, "pass_env": ["NPM_TOKEN"]},
		"web_fetch": {"max_bytes": 1024}, "browser": {"chromium": "/usr/bin/chromium"}, "input_timeout": "1m",
		"loop_guard_repeats": 5, "omit_final_file_content": true, "revert_max_count": 7, "revert_max_bytes": 4096,
		"max_sessions": 9, "session_idle_seconds": 120, "event_log_size": 100, "event_log_bytes": 2048,
		"max_calls_per_session": 50, "max_concurrency": 3, "cascade_tools": ["a"], "max_open_messages": 4,
		"open_message_idle_seconds": 30, "require_read_before_edit": true}}`
	current := `{"policy": {"allow_all": true, "permissions": {"deny": ["execute_command(rm:*)"]}, "require_read_before_edit": true},
		"hooks": {"fail_closed": true, "PreToolUse": [{"matcher": "write_to_file", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}, "subagents": {"timeout": "2m"}, "mcp": {"settings": "mcp.json"},
		"sandbox": {"mode": "off", "max_cpu": "90s"},
		"tools": {"commands": {"default_timeout": "20s", "long_timeout": "200s", "max_timeout": "2000s", "pass_env": ["NPM_TOKEN"]},
			"web_fetch": {"max_bytes": 1024}, "browser": {"chromium": "/usr/bin/chromium"}, "input_timeout": "1m",
			"loop_guard_repeats": 5, "omit_final_file_content": true, "revert_max_count": 7, "revert_max_bytes": 4096},
		"sessions": {"max": 9, "idle": "2m", "event_log_size": 100, "event_log_bytes": 2048, "max_calls": 50},
		"messages": {"max_concurrency": 3, "cascade_tools": ["a"], "max_open": 4, "open_idle": "30s"}}`
	dir := t.TempDir()
	load := func(name, body string) fileConfig {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := loadConfig(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return cfg
	}
	old, cur := load("old.json", legacy), load("new.json", current)
	if len(cur.Warnings) != 0 {
		t.Errorf("current layout warned: %q", cur.Warnings)
	}
	// 21 moved keys plus the 4 *_seconds keys moved with their sections.
	if len(old.Warnings) != 25 {
		t.Errorf("legacy layout gave %d warnings, want 25:\n%s", len(old.Warnings), strings.Join(old.Warnings, "\n"))
	}
	for _, w := range []string{"policy.hooks is deprecated: write hooks", "policy.session_idle_seconds is deprecated: write sessions.idle as a duration, e.g. \"120s\"",
		"tools.commands.max_timeout_seconds is deprecated"} {
		if !strings.Contains(strings.Join(old.Warnings, "\n"), w) {
			t.Errorf("no warning %q in:\n%s", w, strings.Join(old.Warnings, "\n"))
		}
	}
	// Both protect their own (different) file; the rest must be equal.
	old.Coordinator.ProtectedFiles, cur.Coordinator.ProtectedFiles = nil, nil
	old.Warnings, cur.Warnings = nil, nil
	if !reflect.DeepEqual(old, cur) {
		t.Errorf("legacy layout loads as\n%+v\nwant\n%+v", old.Coordinator, cur.Coordinator)
	}
	c := cur.Coordinator
	if c.SessionIdleSeconds != 120 || c.Commands.MaxTimeoutSeconds != 2000 || c.Sandbox.MaxCPUSeconds != 90 || c.OpenMessageIdleSeconds != 30 ||
		time.Duration(c.InputTimeout) != time.Minute || c.MaxSessions != 9 || !c.AllowAll || c.MCPSettings != filepath.Join(dir, "mcp.json") {
		t.Errorf("values not read: %+v", c)
	}
	if h := c.Hooks.PreToolUse; len(h) != 1 || h[0].Matcher != "write_to_file" || len(h[0].Hooks) != 1 || h[0].Hooks[0].Command != "./check.sh" || h[0].Hooks[0].Timeout != 30 {
		t.Errorf("hooks not read: %+v", c.Hooks)
	}
}

// TestConfigEveryCoordinatorFieldHasAKey: every field of the
// coordinator's Config that a file may set has a key in the file's layout,
// so a field added to Config without a key fails here rather than being
// silently unreachable.
func TestConfigEveryCoordinatorFieldHasAKey(t *testing.T) {
	var cfg fileConfig
	type span struct{ from, to uintptr }
	var targets []span
	var visit func(v reflect.Value)
	visit = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				targets = append(targets, span{v.Pointer(), v.Pointer() + v.Type().Elem().Size()})
			}
		case reflect.Struct:
			for i := range v.NumField() {
				visit(v.Field(i))
			}
		}
	}
	visit(reflect.ValueOf(newConfigView(&cfg)).Elem())
	covered := func(addr, size uintptr) bool {
		for _, s := range targets {
			if addr >= s.from && addr+size <= s.to {
				return true
			}
		}
		return false
	}
	var check func(prefix string, v reflect.Value)
	check = func(prefix string, v reflect.Value) {
		for i := range v.NumField() {
			sf, f := v.Type().Field(i), v.Field(i)
			if sf.Tag.Get("json") == "-" {
				continue
			}
			if covered(f.UnsafeAddr(), sf.Type.Size()) {
				continue
			}
			if sf.Anonymous && f.Kind() == reflect.Struct {
				check(prefix+sf.Name+".", f)
				continue
			}
			t.Errorf("coordinator.Config.%s%s has no key in the config file (add it to configView)", prefix, sf.Name)
		}
	}
	check("", reflect.ValueOf(&cfg.Coordinator).Elem())
}

// TestServeWarnsOfLegacyKeys: serve logs each deprecated key through slog
// as a warning before anything else can fail (here: a missing workspace),
// and refuses a bad config listing every problem.
func TestServeWarnsOfLegacyKeys(t *testing.T) {
	path := writeConfig(t, `{"policy": {"max_sessions": 4, "session_idle_seconds": 60}}`)
	var stderr strings.Builder
	args := []string{"toolgate", "serve", "--config", path, "--workspace", filepath.Join(t.TempDir(), "missing"), "--log-format", "json"}
	if err := run(t.Context(), args, func(string) string { return "" }, strings.NewReader(""), io.Discard, &stderr); err == nil {
		t.Fatal("serve started without a workspace")
	}
	var warnings []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["level"] == "WARN" {
			warnings = append(warnings, rec)
		}
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0]["msg"].(string), "policy.max_sessions is deprecated: write sessions.max") ||
		warnings[0]["config"] != path {
		t.Errorf("want two slog warnings naming the old keys and the file, got:\n%s", stderr.String())
	}

	bad := writeConfig(t, `{"sessions": {"max": -1}, "messages": {"max_open": -1}}`)
	err := run(t.Context(), []string{"toolgate", "serve", "--config", bad, "--workspace", t.TempDir()}, func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "sessions.max") || !strings.Contains(err.Error(), "messages.max_open") {
		t.Errorf("serve with a bad config: %v, want both problems", err)
	}
}
