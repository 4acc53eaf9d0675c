package search

import (
	"strconv"
	"strings"
)

const (
	// DefaultMaxResults is Cline's cap on search results.
	DefaultMaxResults = 300
	// maxOutputBytes is Cline's 0.25 MB cap on the formatted text.
	maxOutputBytes = 256 << 10
	sep            = "│----\n"
)

// matchGroup is one match with its context, grouped the way Cline's parser
// of `rg --json --context 1` groups them (services/ripgrep/index.ts,
// regexSearchFiles): a context line belongs to the last match before it in
// ripgrep's output, whichever file that match is in, as a line before it
// when its line number is lower and after it otherwise; context lines
// before the first match of the whole search belong to none.
type matchGroup struct {
	before, after []string
	match         string
}

// groupAll groups the lines of every file, in the files' order, into
// each file's results.
func groupAll(files []FileMatches) [][]matchGroup {
	out := make([][]matchGroup, len(files))
	last, lastFile, lastLine := -1, -1, 0
	for fi, f := range files {
		for _, l := range f.Lines {
			switch {
			case l.Match:
				out[fi] = append(out[fi], matchGroup{match: l.Text})
				last, lastFile, lastLine = len(out[fi])-1, fi, l.Number
			case last < 0:
			case l.Number < lastLine:
				r := &out[lastFile][last]
				r.before = append(r.before, l.Text)
			default:
				r := &out[lastFile][last]
				r.after = append(r.after, l.Text)
			}
		}
	}
	return out
}

// Format renders the result exactly as Cline's search_files prints ripgrep
// output: a count header, then per file its path and each match with one
// line of context, separated by │----, within 300 results and 0.25 MB.
func (r *Result) Format() string {
	var b strings.Builder
	if r.Truncated {
		b.WriteString("Showing first " + strconv.Itoa(r.max()) + " of " + strconv.Itoa(r.max()) +
			"+ results. Use a more specific search if necessary.\n\n")
	} else if r.Count == 1 {
		b.WriteString("Found 1 result.\n\n")
	} else {
		b.WriteString("Found " + groupThousands(r.Count) + " results.\n\n")
	}
	if !writeFiles(&b, r.Files) {
		msg := "\n[Results truncated due to exceeding the 0.25MB size limit. Please use a more specific search pattern.]"
		if b.Len()+len(msg) < maxOutputBytes {
			b.WriteString(msg)
		}
	}
	return strings.TrimFunc(b.String(), isJSSpace)
}

// writeFiles appends file blocks while they fit; false means the size cap
// cut the output, at the same boundaries Cline cuts it.
func writeFiles(b *strings.Builder, files []FileMatches) bool {
	fits := func(s string) bool { return b.Len()+len(s) < maxOutputBytes }
	grouped := groupAll(files)
	for fi, f := range files {
		head := f.Path + "\n" + sep
		if !fits(head) {
			return false
		}
		b.WriteString(head)
		results := grouped[fi]
		for i, res := range results {
			var chunk strings.Builder
			for _, text := range concatLines(res) {
				line := "│" + strings.TrimRightFunc(strings.ToValidUTF8(text, "\uFFFD"), isJSSpace) + "\n"
				if b.Len()+chunk.Len()+len(line) >= maxOutputBytes {
					return false
				}
				chunk.WriteString(line)
			}
			b.WriteString(chunk.String())
			if i < len(results)-1 {
				if !fits(sep) {
					return false
				}
				b.WriteString(sep)
			}
			if b.Len() >= maxOutputBytes {
				return false
			}
		}
		if !fits(sep + "\n") {
			return false
		}
		b.WriteString(sep + "\n")
	}
	return true
}

func concatLines(r matchGroup) []string {
	all := make([]string, 0, len(r.before)+1+len(r.after))
	all = append(all, r.before...)
	all = append(all, r.match)
	return append(all, r.after...)
}

// isJSSpace is the whitespace JavaScript's trim and trimEnd remove.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// groupThousands mimics toLocaleString for en-US.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
