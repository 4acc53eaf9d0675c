package coordinator

import (
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// stopBefore is callState.stop as it was: the outcome moved to the heap
// on its own. The baseline of BenchmarkCallEnd.
func (cs *callState) stopBefore(out outcome) { cs.end = &out }

// BenchmarkCallEnd times a call's end being kept (execute's, for every
// call that runs) in the call's own allocation (stop) against the
// outcome moved to the heap on its own (stopBefore).
//
//	go test -run '^$' -bench CallEnd -count 5 ./coordinator/
func BenchmarkCallEnd(b *testing.B) {
	out := outcome{status: api.StatusSucceeded, result: tool.TextResult(numberedKB())}
	fast, plain := &callState{}, &callState{}
	benchpair.Run(b, func() { fast.stop(out) }, func() { plain.stopBefore(out) })
}

// TestStopKeepsItsOwnOutcome: the outcome stop keeps is the call's own:
// the caller's copy changed afterwards does not reach it, the stages
// after it change it through end, and a later stop replaces it.
func TestStopKeepsItsOwnOutcome(t *testing.T) {
	cs := &callState{}
	if !cs.running() {
		t.Fatal("a new call is not running")
	}
	out := outcome{status: api.StatusSucceeded, result: tool.TextResult("read")}
	cs.stop(out)
	out.status = api.StatusFailed
	if cs.running() || cs.end.status != api.StatusSucceeded || cs.end.result.Content[0].Text != "read" {
		t.Fatalf("after stop: running %v, end %+v", cs.running(), cs.end)
	}
	end := cs.end
	end.result.Content = append(end.result.Content, api.TextContent("warning"))
	if len(cs.end.result.Content) != 2 {
		t.Fatalf("a change through end is lost: %+v", cs.end)
	}
	cs.stop(failure(api.StatusDenied, api.ToolCodeDenied, "Denied."))
	if cs.end.status != api.StatusDenied || cs.end.code != api.ToolCodeDenied || len(cs.end.result.Content) != 1 {
		t.Fatalf("after a second stop: %+v", cs.end)
	}
}
