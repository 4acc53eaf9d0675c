package coordinator

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// loopKey is a call's loop key as enqueue made it before seeCall: the
// key string made for every call. The baseline of
// TestSeeCallSameAsSee and BenchmarkLoopGuardRepeat.
func loopKey(cs *callState) string {
	input := cs.raw
	if cs.tool == nil {
		input, _, _ = splitTaskProgress(cs.use.Input)
	}
	if name := cs.toolName(); name != tool.UseMCPTool && canonicalFlat(input) || name == tool.UseMCPTool && canonicalMCP(input) {
		return name + "\x00" + string(input)
	}
	return loopKeyRoundTrip(cs.toolName(), input)
}

// loopCall is a call as the loop guard sees it: resolved to t, or to no
// tool (then its raw input is the model's).
func loopCall(t *tool.Tool, name, input string) *callState {
	cs := &callState{use: api.ToolUse{Name: name, Input: json.RawMessage(input)}, tool: t}
	if t != nil {
		cs.raw = json.RawMessage(input)
	}
	return cs
}

// seeCall counts what see counted with the key made for every call: in
// canonical form or not, repeated or not, whatever the split between
// name and input.
func TestSeeCallSameAsSee(t *testing.T) {
	read := &tool.Tool{Name: "read_file"}
	readx := &tool.Tool{Name: "read_filex"}
	calls := []*callState{
		loopCall(read, "read_file", `{"path":"a"}`),
		loopCall(read, "read_file", `{"path":"a"}`),
		loopCall(read, "read_file", `{ "path": "a" }`), // the same call, not canonical
		loopCall(read, "read_file", `{"path":"a"}`),
		loopCall(readx, "read_filex", `{"path":"a"}`),
		loopCall(read, "read_file", `{"path":"b"}`),
		loopCall(read, "read_file", `{"path":"b"}`),
		loopCall(&tool.Tool{Name: "read_fila"}, "read_fila", `{"path":"b"}`), // another name of the same length
		loopCall(nil, "nothing", `{"path":"b","task_progress":"x"}`),
		loopCall(nil, "nothing", `{"path":"b","task_progress":"y"}`),
		loopCall(read, "read_file", `{}`),
		loopCall(read, "read_file", ``),
		loopCall(read, "read_file", ``),
		loopCall(&tool.Tool{Name: tool.UseMCPTool}, tool.UseMCPTool, `{"arguments":{"a":1},"server_name":"s","tool_name":"t"}`),
		loopCall(&tool.Tool{Name: tool.UseMCPTool}, tool.UseMCPTool, `{"arguments":"{\"a\":1}","server_name":"s","tool_name":"t"}`),
	}
	var fast, plain loopGuard
	for i, cs := range calls {
		if got, want := fast.seeCall(cs), plain.see(loopKey(cs)); got != want {
			t.Errorf("call %d (%s %s): seeCall counts %d, see counted %d", i, cs.use.Name, cs.use.Input, got, want)
		}
	}
}

// BenchmarkLoopGuardRepeat measures counting a repeated read (the same
// input again and again, the guard's case) with seeCall against see with
// the key made for every call.
func BenchmarkLoopGuardRepeat(b *testing.B) {
	cs := loopCall(&tool.Tool{Name: "read_file"}, "read_file", `{"end_line":40,"path":"src/server/handler.go","start_line":1}`)
	var fast, plain loopGuard
	b.Run("allocs", func(b *testing.B) {
		b.ReportMetric(testing.AllocsPerRun(1000, func() { fast.seeCall(cs) }), "fast_allocs/op")
		b.ReportMetric(testing.AllocsPerRun(1000, func() { plain.see(loopKey(cs)) }), "plain_allocs/op")
	})
	b.Run("time", func(b *testing.B) {
		benchpair.Run(b, func() { fast.seeCall(cs) }, func() { plain.see(loopKey(cs)) })
	})
}
