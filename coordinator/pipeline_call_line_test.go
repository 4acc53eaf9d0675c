package coordinator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// The per-call "tool call" line is written at debug level and only then,
// with the call's attributes, its status and its duration: the level
// New reads once decides it as the logger's own check did at each call.
func TestCallLineAtDebugLevelOnly(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn} {
		var logs bytes.Buffer
		c := coordinator.New(coordinator.Options{Tools: []tool.Registration{{Name: "typed", Factory: echoTyped}},
			Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: level}))})
		s, err := c.Sessions().Get(api.DefaultSessionID)
		if err != nil {
			t.Fatal(err)
		}
		_, rec := c.Execute(context.Background(), s, "", api.ToolUse{Type: api.TypeToolUse, ID: "toolu_line", Name: "typed", Input: json.RawMessage(`{"path":"a"}`)})
		c.Close()
		if rec.Status != api.StatusSucceeded {
			t.Fatalf("%v: call %s", level, rec.Status)
		}
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "tool call" {
				lines = append(lines, m)
			}
		}
		if level > slog.LevelDebug {
			if len(lines) != 0 {
				t.Errorf("%v: tool call lines %v, want none", level, lines)
			}
			continue
		}
		if len(lines) != 1 {
			t.Fatalf("%v: %d tool call lines in\n%s", level, len(lines), logs.String())
		}
		l := lines[0]
		if l["level"] != "DEBUG" || l["session_id"] != api.DefaultSessionID || l["tool_use_id"] != "toolu_line" || l["tool"] != "typed" ||
			l["status"] != string(api.StatusSucceeded) || l["duration_ms"] == nil {
			t.Errorf("tool call line %v", l)
		}
	}
}
