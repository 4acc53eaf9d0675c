package handlers

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The three forms of grep_files's answer, as Claude Code 2.1's Grep words
// them (recorded from the real CLI by internal/conformance/claudecode):
// paths relative to the workspace, as ripgrep run there prints them;
// offset and head_limit cut a window from the lines or entries, and a
// cut is said after them ("limit: N" when entries were left off after the
// window, "offset: M" when some were skipped before it).

// grepFilesWithMatches lists matching files newest first.
func grepFilesWithMatches(hits []grepFile, in *GrepInput) string {
	if len(hits) == 0 {
		return "No files found"
	}
	slices.SortStableFunc(hits, func(a, b grepFile) int { return b.found.ModTime.Compare(a.found.ModTime) })
	paths := make([]string, 0, len(hits))
	for _, h := range hits {
		paths = append(paths, h.path)
	}
	paths, info := grepPage(paths, in.Offset, in.HeadLimit)
	if info != "" {
		info = " " + info
	}
	return fmt.Sprintf("Found %d %s%s\n%s", len(paths), pluralWord(len(paths), "file"), info, strings.Join(paths, "\n"))
}

// grepCount answers path:count lines and a total.
func grepCount(hits []grepFile, in *GrepInput) string {
	if len(hits) == 0 {
		return "No matches found"
	}
	var lines []string
	for _, h := range hits {
		lines = append(lines, fmt.Sprintf("%s:%d", h.path, h.count))
	}
	lines, info := grepPage(lines, in.Offset, in.HeadLimit)
	total := 0
	for _, l := range lines {
		var n int
		fmt.Sscan(l[strings.LastIndexByte(l, ':')+1:], &n)
		total += n
	}
	if info != "" {
		info = " with pagination = " + info
	}
	return fmt.Sprintf("%s\n\nFound %d total %s across %d %s.%s", strings.Join(lines, "\n"),
		total, pluralWord(total, "occurrence"), len(lines), pluralWord(len(lines), "file"), info)
}

// grepContent shows matching lines as ripgrep does: path:line:text for a
// match, path-line-text for context, "--" between separate groups. A
// search of one named file shows no path. Given an absolute path, ripgrep
// prints absolute paths and Claude Code makes only the match lines'
// relative, so context lines keep theirs.
func grepContent(hits []grepFile, in *GrepInput, re *regexp.Regexp, named bool) string {
	before, after := in.Before, in.After
	if in.Context > 0 {
		before, after = in.Context, in.Context
	}
	numbers := in.LineNumber == nil || *in.LineNumber
	absolute := filepath.IsAbs(in.Path)
	var out []string
	context := before > 0 || after > 0
	for _, h := range hits {
		last := -2
		for i := range h.lines {
			if !h.matched[i] {
				continue
			}
			from, to := max(i-before, 0), min(i+after, len(h.lines)-1)
			// ripgrep separates groups of context, within a file and
			// between files.
			if context && len(out) > 0 && (last < 0 || from > last+1) {
				out = append(out, "--")
			}
			for j := max(from, last+1); j <= to; j++ {
				sep, name := "-", h.path
				if h.matched[j] {
					sep = ":"
				} else if absolute {
					name = h.abs
				}
				prefix := ""
				if !named {
					prefix = name + sep
				}
				if numbers {
					prefix += fmt.Sprint(j+1) + sep
				}
				text := strings.TrimSuffix(h.lines[j], "\r")
				if in.Only && h.matched[j] {
					for _, m := range re.FindAllString(text, -1) {
						out = append(out, prefix+m)
					}
					continue
				}
				out = append(out, prefix+text)
			}
			last = max(last, to)
		}
	}
	if len(out) == 0 {
		return "No matches found"
	}
	out, info := grepPage(out, in.Offset, in.HeadLimit)
	// Claude Code trims ripgrep's output as a whole (a named file's
	// first line, shown without a name or number, loses its indent).
	text := strings.TrimSpace(strings.Join(out, "\n"))
	if info != "" {
		text += "\n\n[Showing results with pagination = " + info + "]"
	}
	return text
}

// grepPage cuts the window offset, head_limit from xs and says what was
// cut.
func grepPage(xs []string, offset, limit int) ([]string, string) {
	var info []string
	xs = xs[min(offset, len(xs)):]
	if limit > 0 && len(xs) > limit {
		xs = xs[:limit]
		info = append(info, fmt.Sprintf("limit: %d", limit))
	}
	if offset > 0 {
		info = append(info, fmt.Sprintf("offset: %d", offset))
	}
	return xs, strings.Join(info, ", ")
}

func pluralWord(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
