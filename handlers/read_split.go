package handlers

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// splitWindow renders lines start..start+limit-1 (every line from start
// when limit is 0) as Claude Code 2.1's Read does: the text split at each
// "\n" (so a final newline is followed by an empty last line), a "\r"
// before it dropped, each line whole after its number and a tab, lines
// joined by "\n". The read is bounded by maxEditBytes, past which the
// file is too large to read whole.
func splitWindow(r io.Reader, rel string, start, limit int) (tool.Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxEditBytes+1))
	if err != nil {
		return tool.Result{}, fileError(rel, err)
	}
	if len(data) > maxEditBytes {
		return tool.Result{}, tooLarge(rel, int64(len(data)))
	}
	if len(data) == 0 {
		return tool.TextResult("<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"), nil
	}
	lines := strings.Split(string(data), "\n")
	if start > len(lines) {
		return tool.TextResult(fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). "+
			"The file has %d lines.</system-reminder>", start, len(lines))), nil
	}
	end := len(lines)
	if limit > 0 {
		end = min(end, start-1+limit)
	}
	var b strings.Builder
	for i := start - 1; i < end; i++ {
		if i >= start {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d\t%s", i+1, strings.TrimSuffix(lines[i], "\r"))
	}
	return tool.TextResult(b.String()), nil
}
