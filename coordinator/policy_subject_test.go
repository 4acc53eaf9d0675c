package coordinator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator/policy"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// A command tool names its paths twice, through its Paths and through the
// command analysis; the subject, and so the approval preview, lists each
// once.
func TestSubjectListsEachPathOnce(t *testing.T) {
	p := newTestPolicy(t, Config{}, map[string]string{"a.txt": "x"})
	tool := NewTool(tool.Spec[cmdIn]{
		Name:    "execute_command",
		Run:     func(context.Context, *tool.Call, *cmdIn) (tool.Result, error) { return tool.Result{}, nil },
		Paths:   func(in *cmdIn) []string { return []string{"a.txt"} },
		Command: func(in *cmdIn) tool.CommandLine { return tool.CommandLine{Command: in.Command} },
	})
	raw, _ := json.Marshal(cmd("cat a.txt a.txt; cd \"$D\" && cat b"))
	var in cmdIn
	_ = json.Unmarshal(raw, &in)
	sub, _ := p.c.buildSubject(tool, &in, raw)
	var rels []string
	for _, r := range sub.Paths {
		rels = append(rels, r.Rel)
	}
	if strings.Count(strings.Join(rels, " "), "a.txt") != 1 {
		t.Errorf("paths %v, want a.txt once", rels)
	}
	if len(sub.Outside) != 1 {
		t.Fatalf("outside %v, want the one word after the unknown cd", sub.Outside)
	}
	got := policy.OutsideReason(sub.Outside[0])
	if !strings.Contains(got, `"b" after a cd or exec`) {
		t.Errorf("reason %q, want it to name b after an unknown cd", got)
	}
}
