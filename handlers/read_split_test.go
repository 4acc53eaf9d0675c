package handlers

import (
	"strings"
	"testing"
)

// TestSplitWindow: Claude Code 2.1's Read form, as recorded from the
// real CLI by the conformance harness: unpadded numbers, a final newline
// followed by an empty numbered line, CR dropped, long lines whole, no
// default line count.
func TestSplitWindow(t *testing.T) {
	long := strings.Repeat("x", 2500)
	for _, tc := range []struct {
		name, text   string
		start, limit int
		want         string
	}{
		{"final newline", "a\nb\n", 1, 0, "1\ta\n2\tb\n3\t"},
		{"no final newline", "a\nb", 1, 0, "1\ta\n2\tb"},
		{"crlf", "a\r\nb\r\n", 1, 0, "1\ta\n2\tb\n3\t"},
		{"window", "a\nb\nc\nd\n", 2, 2, "2\tb\n3\tc"},
		{"long line whole", long + "\n", 1, 1, "1\t" + long},
		{"past the end", "a\n", 5, 0, "<system-reminder>Warning: the file exists but is shorter than the provided offset (5). The file has 2 lines.</system-reminder>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := splitWindow(strings.NewReader(tc.text), "f.txt", tc.start, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.LastText(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
