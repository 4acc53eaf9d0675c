package coordinator

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/toolgate/toolgate/api"
)

// loopGuard counts a session's identical calls in a row: a model stuck in
// a loop repeats the same call, and a warning in the result can break it.
type loopGuard struct {
	mu    sync.Mutex
	last  string
	count int
}

// see records a call by its key and returns how many identical calls in
// a row it completes.
func (g *loopGuard) see(key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if key == g.last {
		g.count++
	} else {
		g.last, g.count = key, 1
	}
	return g.count
}

// loopKey identifies a call by the real tool it reaches and its input:
// an MCP call by its server and tool (whichever name form the model used),
// the input after string coercion, without task_progress (it changes every
// turn while the call stays the same, as Cline's loop-detection.ts
// IGNORED_PARAMS says), with keys in a canonical order so that reordered
// JSON is the same call.
func loopKey(cs *callState) string {
	input := cs.raw
	if cs.tool == nil {
		input, _, _ = splitTaskProgress(cs.use.Input)
	}
	var v any
	if err := json.Unmarshal(input, &v); err == nil {
		if m, ok := v.(map[string]any); ok && cs.toolName() == UseMCPTool {
			// use_mcp_tool may carry its arguments as a JSON text.
			if a, ok := m["arguments"].(string); ok {
				var args any
				if json.Unmarshal([]byte(a), &args) == nil {
					m["arguments"] = args
				}
			}
			if m["arguments"] == nil {
				m["arguments"] = map[string]any{}
			}
		}
		if b, err := json.Marshal(v); err == nil {
			input = b
		}
	}
	return cs.toolName() + "\x00" + string(input)
}

// guardLoop appends Cline's warning (prompts/responses.ts repeatedToolCall)
// to the result of a call that repeats the session's previous calls
// exactly, once it reaches the configured count. The count was taken when
// the call was queued (enqueue).
func (c *Coordinator) guardLoop(cs *callState) {
	limit := c.cfg.LoopGuardRepeats
	if limit < 0 {
		return
	}
	n := cs.repeats
	if n < limit {
		return
	}
	cs.end.result.Content = append(cs.end.result.Content, api.TextContent(fmt.Sprintf(
		"Tool [%s] has been called %d times consecutively with identical arguments. This is not making progress. Please use a different tool or different arguments instead of repeating the same call.",
		cs.toolName(), n)))
}
