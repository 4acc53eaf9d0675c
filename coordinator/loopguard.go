package coordinator

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/toolgate/toolgate/api"
)

// defaultLoopRepeats is Cline's threshold: the third identical call in a
// row earns a warning.
const defaultLoopRepeats = 3

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

// loopKey identifies a call by its tool and its input, with the input's
// keys in a canonical order so that reordered JSON is the same call.
func loopKey(name string, input json.RawMessage) string {
	var v any
	if err := json.Unmarshal(input, &v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			input = b
		}
	}
	return name + "\x00" + string(input)
}

// guardLoop appends a warning to the result of a call that repeats the
// session's previous calls exactly, once it reaches the configured count.
func (c *Coordinator) guardLoop(s *Session, p prepared, out *outcome) {
	limit := c.cfg.LoopGuardRepeats
	if limit < 0 {
		return
	}
	if limit == 0 {
		limit = defaultLoopRepeats
	}
	n := s.loop.see(loopKey(p.toolName(), p.use.Input))
	if n < limit {
		return
	}
	out.result.Content = append(out.result.Content, api.TextContent(fmt.Sprintf(
		"Warning: this is call %d in a row to %s with exactly the same input. Repeating it will not change the result; try a different approach or ask the user for guidance.",
		n, p.toolName())))
}
