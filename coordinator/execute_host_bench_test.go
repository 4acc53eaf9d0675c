package coordinator

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// attachClosures plugs a running call's runtime as execute did before
// execCall was its tool.Host: a closure per request. BenchmarkCallRuntime's
// baseline.
func attachClosures(c *Coordinator, cs *callState, ec *execCall, rec api.CallRecord) {
	s, e, confined := cs.s, cs.e, &ec.confined
	ec.Attach(tool.Runtime{Host: tool.HostFuncs{
		OnOutput: func(stream, chunk string) {
			s.Events.Append(api.Event{Type: api.EventToolOutput, MessageID: rec.MessageID, ToolUseID: rec.ToolUseID, Stream: stream, Chunk: chunk})
		},
		OnKeep: func(o tool.KeptOutput) { s.keepOutput(e, o) },
		OnAwait: func(ctx context.Context, req api.InputRequest) (api.AnswerRequest, error) {
			return c.awaitInput(ctx, s, e, req)
		},
		OnConfine: func(dir string) (*sandbox.Sandbox, sandbox.Run, error) {
			confined.Store(true)
			if cs.unsandboxed && cs.approved {
				return nil, c.unconfined(dir), nil
			}
			r, err := c.confine(dir, cs.ignored)
			r.ReadOnly = append(r.ReadOnly, c.links.EditDeniedPaths(c.workspace, policy.EditDenialPatterns(c.policy.Managed, s.permRules()))...)
			if err == nil {
				r.Net = c.network(s)
			}
			return c.sandbox, r, err
		},
		OnDeniedURL: func(u string) error { return c.policy.DeniedURL(s.permRules(), cs.tool.Name, u) },
	},
		Ignored:     cs.ignored,
		Todos:       s.todosFn,
		SandboxHint: c.hintFn,
		Jobs:        s.jobs,
	})
}

var execSink *execCall

// BenchmarkCallRuntime measures making a running call and plugging its
// runtime in, as execute does for every call: the call as its own
// tool.Host against a closure per request.
func BenchmarkCallRuntime(b *testing.B) {
	c := New(Options{})
	defer c.Close()
	s, err := c.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		b.Fatal(err)
	}
	cs := &callState{use: api.ToolUse{ID: "toolu_1", Name: "read_file"}, s: s, e: &callEntry{}}
	rec := api.CallRecord{ToolUseID: "toolu_1", MessageID: "m1"}
	host := func() {
		ec := &execCall{Call: tool.Call{ToolUseID: rec.ToolUseID, SessionID: s.ID}, c: c, cs: cs, messageID: rec.MessageID}
		ec.Attach(tool.Runtime{Ignored: cs.ignored, Todos: s.todosFn, SandboxHint: c.hintFn, Jobs: s.jobs, Host: ec})
		execSink = ec
	}
	closures := func() {
		ec := &execCall{Call: tool.Call{ToolUseID: rec.ToolUseID, SessionID: s.ID}}
		attachClosures(c, cs, ec, rec)
		execSink = ec
	}
	b.Run("allocs", func(b *testing.B) {
		b.ReportMetric(testing.AllocsPerRun(1000, host), "fast_allocs/op")
		b.ReportMetric(testing.AllocsPerRun(1000, closures), "plain_allocs/op")
	})
	b.Run("time", func(b *testing.B) { benchpair.Run(b, host, closures) })
}
