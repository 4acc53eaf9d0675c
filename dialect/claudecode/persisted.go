package claudecode

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode/utf16"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// Claude Code 2.1's Bash answers an output over its limit with a preview
// and the path of a file holding the whole output, which its Read opens.
// Its numbers and words, from the CLI's own source (the Bash tool and
// the tool-result persistence it calls):
const (
	// bashOutputLimit is BASH_MAX_OUTPUT_LENGTH's default: an output of
	// more bytes is kept in a file.
	bashOutputLimit = 30000
	// previewChars is the preview's length in UTF-16 code units.
	previewChars = 2000
)

// leadingBlankLines are what Claude Code strips from the front of a
// command's output.
var leadingBlankLines = regexp.MustCompile(`^(\s*\n)+`)

// persistedOutput words execute_command's answer with a saved output
// (save_over) as Claude Code's Bash does:
//
//	<persisted-output>
//	Output too large (106.3KB). Full output saved to: <path>
//
//	Preview (first 2KB):
//	<the first 2000 characters, cut at a line end past the first half>
//	...
//	</persisted-output>
//
// It reports false when the answer names no saved output.
func persistedOutput(res tool.Result) (tool.Result, bool) {
	if len(res.Content) != 2 {
		return res, false
	}
	size, path, ok := handlers.ParseSavedOutput(res.Content[1].Text)
	if !ok {
		return res, false
	}
	out := strings.TrimRight(leadingBlankLines.ReplaceAllString(res.Content[0].Text, ""), jsWhitespace)
	preview, more := previewOf(out, previewChars)
	var b strings.Builder
	fmt.Fprintf(&b, "<persisted-output>\nOutput too large (%s). Full output saved to: %s\n\n", jsSize(size), path)
	fmt.Fprintf(&b, "Preview (first %s):\n%s", jsSize(previewChars), preview)
	if more {
		b.WriteString("\n...\n")
	} else {
		b.WriteString("\n")
	}
	b.WriteString("</persisted-output>")
	return tool.TextResult(b.String()), true
}

// jsWhitespace is what JavaScript's trimEnd removes (the ASCII part and
// the common Unicode spaces).
const jsWhitespace = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

// previewOf is s whole when it has at most n UTF-16 code units; else its
// first n, cut back to the last line end among them when that lies past
// the first half, and true.
func previewOf(s string, n int) (string, bool) {
	first := handlers.CutChars(s, n)
	if first == s {
		return s, false
	}
	if i := strings.LastIndex(first, "\n"); utf16Len(first[:max(i, 0)]) > n/2 {
		return first[:i], true
	}
	return first, true
}

// utf16Len is s's length as JavaScript counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1)
	}
	return n
}

// jsSize words a byte count as Claude Code does: bytes under a KB, then
// KB, MB, GB (of 1024) with one decimal, a ".0" dropped.
func jsSize(n int64) string {
	v := float64(n) / 1024
	if v < 1 {
		return fmt.Sprintf("%d bytes", n)
	}
	for _, unit := range []string{"KB", "MB"} {
		if v < 1024 {
			return oneDecimal(v) + unit
		}
		v /= 1024
	}
	return oneDecimal(v) + "GB"
}

// oneDecimal is JavaScript's toFixed(1) without a trailing ".0": a tie
// rounds up, as toFixed rounds.
func oneDecimal(v float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", math.Floor(v*10+0.5)/10), ".0")
}
