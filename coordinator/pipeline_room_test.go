package coordinator

import (
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkContentRoom times the loop guard's warning added to a read's
// one-block result (every repeated read) in the call's room
// (contentRoom) against append growing the result's full slice.
//
//	go test -run '^$' -bench ContentRoom -count 5 ./coordinator/
func BenchmarkContentRoom(b *testing.B) {
	read := tool.TextResult(numberedKB()).Content
	warning := api.TextContent("Tool [read_file] has been called 5 times consecutively with identical arguments.")
	fast, plain := &callState{}, &callState{}
	fast.stop(outcome{})
	plain.stop(outcome{})
	benchpair.Run(b, func() {
		fast.end.result.Content = read
		fast.end.result.Content = append(fast.contentRoom(1), warning)
	}, func() {
		plain.end.result.Content = read
		plain.end.result.Content = append(plain.end.result.Content, warning)
	})
}

// TestContentRoomAsAppend: a block added through contentRoom gives the
// blocks append gives, for results of 0-3 blocks with and without spare
// capacity, and leaves a full slice the handler returned as it was.
func TestContentRoomAsAppend(t *testing.T) {
	block := func(s string) api.Content { return api.TextContent(s) }
	for n := range 4 {
		for _, spare := range []int{0, 1} {
			content := make([]api.Content, n, n+spare)
			for i := range content {
				content[i] = block(string(rune('a' + i)))
			}
			kept := append(make([]api.Content, 0, n), content...)
			cs := &callState{}
			cs.stop(outcome{result: tool.Result{Content: content}})
			cs.end.result.Content = append(cs.contentRoom(1), block("w"))
			want := append(append([]api.Content(nil), kept...), block("w"))
			if !reflect.DeepEqual(cs.end.result.Content, want) {
				t.Errorf("%d blocks, %d spare: %v, want %v", n, spare, cs.end.result.Content, want)
			}
			if !reflect.DeepEqual(content, kept) {
				t.Errorf("%d blocks, %d spare: the handler's blocks changed: %v", n, spare, content)
			}
			// A second block after the first, as a later stage would.
			cs.end.result.Content = append(cs.contentRoom(1), block("x"))
			if want = append(want, block("x")); !reflect.DeepEqual(cs.end.result.Content, want) {
				t.Errorf("%d blocks, %d spare, then one more: %v, want %v", n, spare, cs.end.result.Content, want)
			}
		}
	}
}
