package coordinator

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
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

// seeCall records a call by its loop key and returns how many identical
// calls in a row it completes, as see does. A call's key is the real tool
// it reaches and its input: an MCP call by its server and tool (whichever
// name form the model used), the input after string coercion, without
// task_progress (it changes every turn while the call stays the same, as
// Cline's loop-detection.ts IGNORED_PARAMS says), with keys in a
// canonical order so that reordered JSON is the same call. An input
// already in that order is compared with the last key in place, and its
// key made only when it differs: a repeated call makes no string
// (BenchmarkLoopGuardRepeat).
func (g *loopGuard) seeCall(cs *callState) int {
	name, input, canonical := loopKeyParts(cs)
	if !canonical {
		return g.see(loopKeyRoundTrip(name, input))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if isLoopKey(g.last, name, input) {
		g.count++
	} else {
		g.last, g.count = name+"\x00"+string(input), 1
	}
	return g.count
}

// loopKeyParts are what a call's loop key is made of: the tool's name and
// input, and whether the input is already what loopKeyRoundTrip would make
// of it (then the key is name, a zero byte and the input).
func loopKeyParts(cs *callState) (name string, input json.RawMessage, canonical bool) {
	input = cs.raw
	if cs.tool == nil {
		input, _, _ = splitTaskProgress(cs.use.Input)
	}
	name = cs.toolName()
	return name, input, name != tool.UseMCPTool && canonicalFlat(input) || name == tool.UseMCPTool && canonicalMCP(input)
}

// isLoopKey reports whether key is name + "\x00" + string(input), without
// making that string.
func isLoopKey(key, name string, input []byte) bool {
	return len(key) == len(name)+1+len(input) && key[:len(name)] == name && key[len(name)] == 0 && key[len(name)+1:] == string(input)
}

// loopKeyRoundTrip is the loop key of a call to name with input: the
// input decoded and encoded again, which orders its keys and spells its
// values one way.
func loopKeyRoundTrip(name string, input json.RawMessage) string {
	var v any
	if err := json.Unmarshal(input, &v); err == nil {
		if m, ok := v.(map[string]any); ok && name == tool.UseMCPTool {
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
	return name + "\x00" + string(input)
}

// guardLoop appends Cline's warning (prompts/responses.ts repeatedToolCall)
// to the result of a call that repeats the session's previous calls
// exactly, once it reaches the configured count. The count was taken when
// the call was queued (enqueue).
func (c *Coordinator) guardLoop(cs *callState) {
	limit := c.cfg.LoopGuardRepeats
	// Polling a running job with the same input (Codex's write_stdin
	// with no chars) reads new output each time: that is progress.
	if limit < 0 || cs.toolName() == tool.JobStdinTool {
		return
	}
	n := cs.repeats
	if n < limit {
		return
	}
	cs.end.result.Content = append(cs.contentRoom(1), api.TextContent("Tool ["+cs.toolName()+"] has been called "+strconv.Itoa(n)+
		" times consecutively with identical arguments. This is not making progress. Please use a different tool or different arguments instead of repeating the same call."))
}

// canonicalFlat reports whether b is a JSON object that decoding into an
// any and encoding again gives back byte for byte: no spaces, keys in
// ascending order, strings of printable ASCII that need no escape, and
// values that are such strings, true, false, null or integers of at most
// 15 digits (exact as float64, printed without exponent). Anything else,
// nested values included, is left to the round trip. Speed only: the
// round trip of a small input costs several times the scan
// (BenchmarkInputScans/loopkey, ./coordinator/, docs/benchmarks.md).
func canonicalFlat(b []byte) bool {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return false
	}
	return canonicalMembers(b[1:len(b)-1], nil, true)
}

// canonicalMCP is canonicalFlat for a use_mcp_tool input whose arguments
// are an object: {"arguments":A,...} with A canonicalFlat and the members
// after it as canonicalFlat takes them. (The round trip changes nothing
// else in such an input: it parses arguments only when they are a string
// and puts in {} only when they are missing or null.) mcp__<server>__<tool>
// calls arrive in this form (normalizeName) when their arguments are
// flat, as most are.
func canonicalMCP(b []byte) bool {
	end := mcpArgumentsEnd(b)
	return end > 0 && canonicalFlat(b[len(mcpArgumentsHead)-1:end+1]) && canonicalMembers(b[end+1:len(b)-1], []byte("arguments"), false)
}

// mcpArgumentsHead starts a use_mcp_tool input in canonical form.
const mcpArgumentsHead = `{"arguments":{`

// mcpArgumentsEnd is the index of the '}' that closes the arguments
// object of an input starting with mcpArgumentsHead, or -1: the first '}'
// outside a string. A string with an escape in it is not canonical:
// should a \" make this scan end early or late, the arguments it finds
// hold the '\\' and canonicalFlat refuses them.
func mcpArgumentsEnd(b []byte) int {
	if len(b) < len(mcpArgumentsHead)+2 || string(b[:len(mcpArgumentsHead)]) != mcpArgumentsHead || b[len(b)-1] != '}' {
		return -1
	}
	quoted := false
	for i := len(mcpArgumentsHead); i < len(b)-1; i++ {
		switch b[i] {
		case '"':
			quoted = !quoted
		case '}':
			if !quoted {
				return i
			}
		}
	}
	return -1
}

// canonicalMembers reports whether b, an object's members between its
// braces, is as canonicalFlat takes them; prev is the key before b and
// first says there is none, for members that follow others.
func canonicalMembers(b, prev []byte, first bool) bool {
	for ; len(b) > 0; first = false {
		if !first {
			if b[0] != ',' || len(b) == 1 {
				return false
			}
			b = b[1:]
		}
		key, rest, ok := plainString(b)
		if !ok || len(rest) == 0 || rest[0] != ':' || !first && string(key) <= string(prev) {
			return false
		}
		prev, b = key, rest[1:]
		switch {
		case len(b) > 0 && b[0] == '"':
			_, b, ok = plainString(b)
		case hasWord(b, "true"):
			b = b[4:]
		case hasWord(b, "false"):
			b = b[5:]
		case hasWord(b, "null"):
			b = b[4:]
		default:
			b, ok = plainInteger(b)
		}
		if !ok {
			return false
		}
	}
	return true
}

// plainString splits off a leading JSON string of printable ASCII with
// nothing encoding/json would escape; it returns the string's bytes and
// what follows it.
func plainString(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return b[1:i], b[i+1:], true
		case c < 0x20 || c > 0x7e || c == '\\' || c == '<' || c == '>' || c == '&':
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// plainInteger splits off a leading integer of at most 15 digits, without
// leading zeros or "-0", ending where the value does.
func plainInteger(b []byte) ([]byte, bool) {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	digits := b[start:i]
	switch {
	case len(digits) == 0 || len(digits) > 15:
		return nil, false
	case digits[0] == '0' && (len(digits) > 1 || start > 0):
		return nil, false
	case i < len(b) && b[i] != ',':
		return nil, false
	}
	return b[i:], true
}

// hasWord reports whether b starts with the literal w ending the value.
func hasWord(b []byte, w string) bool {
	return len(b) >= len(w) && string(b[:len(w)]) == w && (len(b) == len(w) || b[len(w)] == ',')
}
