package patch

import (
	"fmt"
	"slices"
	"strings"
)

// Fuzz levels, from strictest: how far lines had to be loosened to match.
// They follow Codex's seek_sequence: exact, then trailing whitespace
// ignored, then surrounding whitespace ignored, then typographic
// punctuation and odd spaces read as their ASCII forms.
const (
	FuzzNone = iota
	FuzzTrailingSpace
	FuzzTrimmed
	FuzzPunctuation
)

// HunkError is a hunk that does not apply: which one, why, and the region
// of the file that came closest.
type HunkError struct {
	Hunk   int // 1-based index among the file's hunks
	Line   int // patch line of the hunk
	Why    string
	Wanted []string // the lines searched for
	// Closest is the region of the file most like Wanted, with its first
	// line number (1-based); empty when nothing came close.
	Closest      []string
	ClosestStart int
	ClosestMatch int // how many of its lines matched after loosening
}

func (e *HunkError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hunk %d (patch line %d): %s", e.Hunk, e.Line, e.Why)
	if len(e.Wanted) > 0 {
		b.WriteString("\nExpected:\n")
		for _, l := range e.Wanted {
			b.WriteString("  | " + l + "\n")
		}
	}
	if len(e.Closest) > 0 {
		fmt.Fprintf(&b, "Closest region (lines %d-%d, %d of %d lines match ignoring whitespace):\n",
			e.ClosestStart, e.ClosestStart+len(e.Closest)-1, e.ClosestMatch, len(e.Wanted))
		for i, l := range e.Closest {
			fmt.Fprintf(&b, "%5d | %s\n", e.ClosestStart+i, l)
		}
	} else if len(e.Wanted) > 0 {
		b.WriteString("No region of the file resembles these lines.\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Apply applies an Update section's hunks to text (LF line endings) and
// returns the new text and the highest fuzz level any hunk needed. The
// result ends with a newline, as Codex's does.
func Apply(text string, hunks []Hunk) (string, int, error) {
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	type replacement struct {
		start, n int
		with     []string
	}
	var reps []replacement
	at, fuzz := 0, FuzzNone
	for i, h := range hunks {
		for _, a := range h.Anchors {
			idx, f := seek(lines, []string{a}, at, false)
			if idx < 0 {
				e := &HunkError{Hunk: i + 1, Line: h.Line, Why: fmt.Sprintf("the @@ anchor %q was not found after line %d", a, at), Wanted: []string{a}}
				closest(e, lines, at)
				return "", 0, e
			}
			at, fuzz = idx+1, max(fuzz, f)
		}
		old := h.Old()
		if len(old) == 0 {
			// A pure addition goes after its anchor, or at the end of
			// the file when it has none.
			pos := at
			if len(h.Anchors) == 0 {
				pos = len(lines)
			}
			reps = append(reps, replacement{start: pos, with: h.New()})
			continue
		}
		idx, f := seek(lines, old, at, h.EOF)
		if idx < 0 && old[len(old)-1] == "" {
			// A trailing empty line stands for the file's last newline,
			// which the split above dropped.
			old = old[:len(old)-1]
			idx, f = seek(lines, old, at, h.EOF)
		}
		if idx < 0 {
			why := "the lines to replace were not found"
			if at > 0 {
				why += fmt.Sprintf(" after line %d", at)
			}
			why += " (also tried ignoring trailing whitespace, surrounding whitespace and typographic punctuation)"
			e := &HunkError{Hunk: i + 1, Line: h.Line, Why: why, Wanted: h.Old()}
			closest(e, lines, 0)
			return "", 0, e
		}
		reps = append(reps, replacement{start: idx, n: len(old), with: replace(h, lines[idx:idx+len(old)])})
		at, fuzz = idx+len(old), max(fuzz, f)
	}
	slices.SortStableFunc(reps, func(a, b replacement) int { return a.start - b.start })
	var out []string
	pos := 0
	for _, r := range reps {
		out = append(out, lines[pos:r.start]...)
		out = append(out, r.with...)
		pos = r.start + r.n
	}
	out = append(out, lines[pos:]...)
	if len(out) == 0 {
		return "", fuzz, nil
	}
	return strings.Join(out, "\n") + "\n", fuzz, nil
}

// replace builds what a matched region becomes: context lines keep the
// file's own text (a loosened match must not rewrite their whitespace),
// removed lines go, added lines come in.
func replace(h Hunk, region []string) []string {
	var out []string
	i := 0
	for _, l := range h.Lines {
		switch l.Op {
		case '+':
			out = append(out, l.Text)
		case '-':
			i++
		default:
			if i < len(region) {
				out = append(out, region[i])
			}
			i++
		}
	}
	return out
}

// loosenings are the line comparisons seek tries, strictest first; the
// index is the fuzz level.
var loosenings = []func(string) string{
	func(s string) string { return s },
	func(s string) string { return strings.TrimRight(s, " \t\r\f\v") },
	strings.TrimSpace,
	normalize,
}

// seek finds pattern in lines at or after start, loosening the comparison
// step by step, and returns the index and the fuzz level used (-1 when not
// found). An eof pattern is tried at the end of the file first.
func seek(lines, pattern []string, start int, eof bool) (int, int) {
	if len(pattern) > len(lines) {
		return -1, 0
	}
	from := start
	if eof {
		from = len(lines) - len(pattern)
	}
	for level, f := range loosenings {
		want := make([]string, len(pattern))
		for i, p := range pattern {
			want[i] = f(p)
		}
		for _, begin := range []int{from, start} {
			for i := begin; i+len(pattern) <= len(lines); i++ {
				if matchAt(lines, want, i, f) {
					return i, level
				}
			}
			if begin == start {
				break
			}
		}
	}
	return -1, 0
}

func matchAt(lines, want []string, i int, f func(string) string) bool {
	for j, w := range want {
		if f(lines[i+j]) != w {
			return false
		}
	}
	return true
}

// normalize trims a line and reads typographic dashes, quotes and odd
// spaces as their ASCII forms (Codex's last pass).
func normalize(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
}

// maxClosestWork bounds the comparisons the closest-region search makes,
// so a failing hunk against a huge file still answers quickly.
const maxClosestWork = 4 << 20

// closest fills in the window of the file (at or after from) where the
// most of the wanted lines match after loosening; ties go to the first.
func closest(e *HunkError, lines []string, from int) {
	n := len(e.Wanted)
	if n == 0 || len(lines) == 0 {
		return
	}
	if n > len(lines) {
		n = len(lines)
	}
	want := make([]string, len(e.Wanted))
	for i, w := range e.Wanted {
		want[i] = normalize(w)
	}
	norm := make([]string, len(lines))
	for i, l := range lines {
		norm[i] = normalize(l)
	}
	if from > len(lines)-n {
		from = 0
	}
	best, bestAt := 0, -1
	work := 0
	for i := from; i+n <= len(lines) && work < maxClosestWork; i++ {
		score := 0
		for j := 0; j < n; j++ {
			if norm[i+j] == want[j] && want[j] != "" {
				score++
			}
		}
		work += n
		if score > best {
			best, bestAt = score, i
		}
	}
	if bestAt < 0 {
		return
	}
	e.Closest = lines[bestAt : bestAt+n]
	e.ClosestStart, e.ClosestMatch = bestAt+1, best
}
