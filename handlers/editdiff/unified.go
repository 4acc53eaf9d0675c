package editdiff

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Unified returns a unified diff (three lines of context) from old to new
// for path, labelled a/path and b/path, or "" when they are equal. Past
// maxLines lines the diff is cut and a note says how many lines were left
// out; maxLines <= 0 means no limit.
func Unified(path, old, new string, maxLines int) string {
	d := udiff.Unified("a/"+path, "b/"+path, old, new)
	if maxLines <= 0 || d == "" {
		return d
	}
	lines := strings.SplitAfter(d, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= maxLines {
		return d
	}
	return strings.Join(lines[:maxLines], "") + fmt.Sprintf("… diff truncated: %d more lines not shown\n", len(lines)-maxLines)
}
