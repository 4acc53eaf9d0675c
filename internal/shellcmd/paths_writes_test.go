package shellcmd

import (
	"slices"
	"testing"
)

// TestWrites: the files a line's output redirections write, joined to
// the directories their commands may run in; reads, descriptor copies
// and /dev/null are no writes.
func TestWrites(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"echo hi > out.txt", []string{"out.txt"}},
		{"echo hi >> notes/out.txt 2>&1", []string{"notes/out.txt"}},
		{"cd src && echo x > a.go", []string{"src/a.go"}},
		{"ls &> all.log; cat < in.txt", []string{"all.log"}},
		{"echo x > /tmp/o.txt", []string{"/tmp/o.txt"}},
		{"ls > /dev/null 2>&1; cat in.txt >&2", nil},
	} {
		if got := Analyze(tc.line).Writes(); !slices.Equal(got, tc.want) {
			t.Errorf("%q writes %q, want %q", tc.line, got, tc.want)
		}
	}
}
