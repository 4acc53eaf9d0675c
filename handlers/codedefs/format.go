package codedefs

import (
	"strings"
	"unicode/utf8"
)

// maxLineBytes clips a printed line: one minified line could otherwise fill
// the model's context on its own.
const maxLineBytes = 1000

// separator marks a gap between printed lines, and opens and closes a block.
const separator = "|----\n"

// render formats the files that have definitions, in srcs order: the file
// name, then its block, then an empty line.
func render(srcs []source, defs map[int][]int) string {
	var b strings.Builder
	for i, s := range srcs {
		block := formatBlock(s.lines, defs[i])
		if block == "" {
			continue
		}
		b.WriteString(s.name)
		b.WriteString("\n")
		b.WriteString(block)
		b.WriteString("\n")
	}
	return b.String()
}

// formatBlock prints the lines numbered (1-based, ascending) in starts, each
// after "│", with a separator between lines that are not adjacent.
func formatBlock(lines []string, starts []int) string {
	var b strings.Builder
	last := -1
	for _, n := range starts {
		text := strings.TrimSuffix(lines[n-1], "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if last != -1 && n > last+1 {
			b.WriteString(separator)
		}
		b.WriteString("│")
		b.WriteString(clip(text))
		b.WriteString("\n")
		last = n
	}
	if b.Len() == 0 {
		return ""
	}
	return separator + b.String() + separator
}

// clip shortens s to at most maxLineBytes, on a rune boundary.
func clip(s string) string {
	if len(s) <= maxLineBytes {
		return s
	}
	cut := maxLineBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
