package ignore

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// Rule is one pattern line of an ignore file. The exported fields name the
// rule in refusals ("denied by .clineignore:3: *.env").
type Rule struct {
	// Source is the file the rule came from, e.g. ".clineignore" or
	// "sub/.gitignore".
	Source string
	// Line is the 1-based line number in Source; 0 for the rule a
	// .clineignore adds for itself (selfRule).
	Line int
	// Text is the pattern as git reads it: the line with its line ending
	// and unescaped trailing spaces removed. git check-ignore -v prints the
	// same text.
	Text string
	// Base is the workspace-relative directory the rule is relative to
	// ("" for the root); the rule applies only to paths below it.
	Base string
	// Negate is set for a "!pattern" line, which re-includes paths.
	Negate bool
	// DirOnly is set for a pattern ending in "/", which matches directories only.
	DirOnly bool

	pattern  string // Text without the leading '!' and trailing '/'
	literal  int    // length of pattern's prefix free of glob syntax
	noSlash  bool   // no '/' in pattern: match the base name at any depth
	endsWith bool   // "*literal": a suffix test on the base name suffices
}

// String formats the rule the way git check-ignore -v names it.
func (r Rule) String() string {
	return fmt.Sprintf("%s:%d:%s", r.Source, r.Line, r.Text)
}

var utf8BOM = []byte("\xef\xbb\xbf")

// ParseRules parses an ignore file's contents. source names the file in the
// returned rules; base is the workspace-relative directory the file lives in
// ("" for the root). Blank lines, comments and lines that can match nothing
// yield no rule.
func ParseRules(source, base string, data []byte) []Rule {
	base = cleanBase(base)
	var rules []Rule
	eachLine(data, func(line int, text string) {
		if r, ok := compileRule(source, base, line, text); ok {
			rules = append(rules, r)
		}
	})
	return rules
}

// eachLine calls fn for every line of data that may hold a pattern, with the
// line trimmed as git trims it. Comment and empty lines are skipped but
// counted, so line numbers match the file.
func eachLine(data []byte, fn func(line int, text string)) {
	data = bytes.TrimPrefix(data, utf8BOM)
	for n := 1; len(data) > 0; n++ {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		// git handles each line as a C string: a NUL ends it.
		if i := bytes.IndexByte(line, 0); i >= 0 {
			line = line[:i]
		}
		fn(n, trimTrailingSpaces(string(line)))
	}
}

// trimTrailingSpaces removes trailing spaces unless escaped with a
// backslash. Tabs are kept, and a line ending in a lone backslash is left
// as it is, both as git does.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// compileRule turns one trimmed line into a rule. It reports false for a
// pattern that is empty once its '!' and trailing '/' are removed, because
// such a pattern never matches in git.
func compileRule(source, base string, line int, text string) (Rule, bool) {
	r := Rule{Source: source, Line: line, Text: text, Base: base}
	p := text
	if strings.HasPrefix(p, "!") {
		r.Negate = true
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.DirOnly = true
		p = p[:len(p)-1]
	}
	if p == "" {
		return Rule{}, false
	}
	r.pattern = p
	r.noSlash = !strings.Contains(p, "/")
	r.literal = literalPrefix(p)
	r.endsWith = p[0] == '*' && literalPrefix(p[1:]) == len(p)-1
	return r, true
}

// literalPrefix returns the length of the prefix of p that holds no glob
// syntax (a backslash counts as syntax).
func literalPrefix(p string) int {
	for i := 0; i < len(p); i++ {
		if isGlobSpecial(p[i]) {
			return i
		}
	}
	return len(p)
}

// matches reports whether the rule's pattern matches p, a clean path below
// r.Base whose last component is name. DirOnly is the caller's concern.
func (r *Rule) matches(p, name string) bool {
	if r.noSlash {
		switch {
		case r.literal == len(r.pattern):
			return name == r.pattern
		case r.endsWith:
			return strings.HasSuffix(name, r.pattern[1:])
		}
		return wildmatch(r.pattern, name, false)
	}
	pat, prefix := r.pattern, r.literal
	if pat[0] == '/' {
		pat, prefix = pat[1:], prefix-1
	}
	rel := p
	if r.Base != "" {
		rel = p[len(r.Base)+1:]
	}
	// git compares the literal prefix first and hands only the rest to the
	// glob matcher; that split decides how a "**" right after the prefix
	// behaves ("a/b**" matches "a/b/c"), so it is kept.
	if prefix > 0 {
		if prefix > len(rel) || rel[:prefix] != pat[:prefix] {
			return false
		}
		pat, rel = pat[prefix:], rel[prefix:]
		if pat == "" && rel == "" {
			return true
		}
	}
	return wildmatch(pat, rel, true)
}

// cleanBase normalizes a directory name to the form rules store: clean,
// slash-separated, no leading or trailing slash, "" for the root.
func cleanBase(base string) string {
	base = strings.Trim(path.Clean("/"+base), "/")
	return base
}
