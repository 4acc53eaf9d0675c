package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// keyMove renames one key of the older config layout. seconds says the
// old key was a number of seconds, which becomes a duration string.
type keyMove struct {
	from, to string
	seconds  bool
}

// legacyKeys are the keys of the older layout, in the order they are
// moved: whole sections first, then the "*_seconds" keys at their new
// places. In that layout "policy" held everything the coordinator reads.
var legacyKeys = []keyMove{
	{from: "policy.hooks", to: "hooks"},
	{from: "policy.subagents", to: "subagents"},
	{from: "policy.mcp_settings", to: "mcp.settings"},
	{from: "policy.sandbox", to: "sandbox"},
	{from: "policy.commands", to: "tools.commands"},
	{from: "policy.web_fetch", to: "tools.web_fetch"},
	{from: "policy.browser", to: "tools.browser"},
	{from: "policy.input_timeout", to: "tools.input_timeout"},
	{from: "policy.loop_guard_repeats", to: "tools.loop_guard_repeats"},
	{from: "policy.omit_final_file_content", to: "tools.omit_final_file_content"},
	{from: "policy.revert_max_count", to: "tools.revert_max_count"},
	{from: "policy.revert_max_bytes", to: "tools.revert_max_bytes"},
	{from: "policy.max_sessions", to: "sessions.max"},
	{from: "policy.session_idle_seconds", to: "sessions.idle", seconds: true},
	{from: "policy.event_log_size", to: "sessions.event_log_size"},
	{from: "policy.event_log_bytes", to: "sessions.event_log_bytes"},
	{from: "policy.max_calls_per_session", to: "sessions.max_calls"},
	{from: "policy.max_concurrency", to: "messages.max_concurrency"},
	{from: "policy.cascade_tools", to: "messages.cascade_tools"},
	{from: "policy.max_open_messages", to: "messages.max_open"},
	{from: "policy.open_message_idle_seconds", to: "messages.open_idle", seconds: true},
	{from: "tools.commands.default_timeout_seconds", to: "tools.commands.default_timeout", seconds: true},
	{from: "tools.commands.long_timeout_seconds", to: "tools.commands.long_timeout", seconds: true},
	{from: "tools.commands.max_timeout_seconds", to: "tools.commands.max_timeout", seconds: true},
	{from: "sandbox.max_cpu_seconds", to: "sandbox.max_cpu", seconds: true},
}

// migrateLegacy moves the older layout's keys in root to their current
// places, with a warning for each. A key given under both names is a
// problem: which one was meant cannot be told.
func migrateLegacy(root map[string]any) (warnings, problems []string) {
	for _, m := range legacyKeys {
		v, ok := lookupKey(root, m.from)
		if !ok {
			continue
		}
		deleteKey(root, m.from)
		if _, taken := lookupKey(root, m.to); taken {
			problems = append(problems, fmt.Sprintf("%s: also set as %s (its current name); keep one", m.from, m.to))
			continue
		}
		if m.seconds {
			n, ok := v.(json.Number)
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: want a number of seconds (better: %s as a duration such as \"30s\")", m.from, m.to))
				continue
			}
			v = string(n) + "s"
			warnings = append(warnings, fmt.Sprintf("config key %s is deprecated: write %s as a duration, e.g. %q", m.from, m.to, v))
		} else {
			warnings = append(warnings, fmt.Sprintf("config key %s is deprecated: write %s", m.from, m.to))
		}
		if !setKey(root, m.to, v) {
			problems = append(problems, fmt.Sprintf("%s: cannot move to %s: a value on that path is not an object", m.from, m.to))
		}
	}
	return warnings, problems
}

// lookupKey finds a dotted path in nested objects.
func lookupKey(root map[string]any, path string) (any, bool) {
	obj := root
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := obj[p].(map[string]any)
		if !ok {
			return nil, false
		}
		obj = next
	}
	v, ok := obj[parts[len(parts)-1]]
	return v, ok
}

func deleteKey(root map[string]any, path string) {
	dir, last := splitLast(path)
	if dir == "" {
		delete(root, last)
		return
	}
	if v, ok := lookupKey(root, dir); ok {
		if obj, ok := v.(map[string]any); ok {
			delete(obj, last)
		}
	}
}

// setKey sets a dotted path, making the objects on the way; false when a
// value on the way is not an object.
func setKey(root map[string]any, path string, v any) bool {
	obj := root
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := obj[p]
		if !ok || next == nil {
			m := map[string]any{}
			obj[p] = m
			obj = m
			continue
		}
		m, ok := next.(map[string]any)
		if !ok {
			return false
		}
		obj = m
	}
	obj[parts[len(parts)-1]] = v
	return true
}

func splitLast(path string) (dir, last string) {
	i := strings.LastIndex(path, ".")
	if i < 0 {
		return "", path
	}
	return path[:i], path[i+1:]
}
