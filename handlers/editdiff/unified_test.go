package editdiff

import (
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	old := "a\nb\nc\n"
	long := strings.Repeat("x\n", 50)
	tests := []struct {
		name     string
		old, new string
		maxLines int
		want     string
	}{
		{name: "equal texts give nothing", old: old, new: old, maxLines: 10, want: ""},
		{name: "one changed line", old: old, new: "a\nB\nc\n", maxLines: 0,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{name: "missing final newline is marked", old: "a", new: "b", maxLines: 0,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"},
		{name: "new file", old: "", new: "n\n", maxLines: 0, want: "--- a/f.txt\n+++ b/f.txt\n@@ -0,0 +1 @@\n+n\n"},
		{name: "truncated past maxLines", old: "", new: long, maxLines: 5,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -0,0 +1,50 @@\n+x\n+x\n… diff truncated: 48 more lines not shown\n"},
		{name: "exactly maxLines is not truncated", old: "a\n", new: "b\n", maxLines: 5,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unified("f.txt", tc.old, tc.new, tc.maxLines); got != tc.want {
				t.Errorf("Unified:\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
}
