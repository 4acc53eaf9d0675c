package search

import (
	"fmt"
	"regexp"
	"strings"
)

// fileGlob is a compiled file pattern in ripgrep's --glob syntax: a pattern
// without '/' matches a file's base name at any depth, one with '/' matches
// the workspace-relative path (as ripgrep run from the workspace does); '*' and '?' stop at '/', '**'
// crosses directories, and {a,b} and [a-z] work as in ripgrep.
type fileGlob struct {
	re       *regexp.Regexp
	basename bool
}

// FilePatternError reports a file_pattern that is not a valid glob.
type FilePatternError struct {
	Pattern string
	Err     error
}

func (e *FilePatternError) Error() string {
	return fmt.Sprintf("file pattern %q: %v", e.Pattern, e.Err)
}

// Unwrap returns the underlying syntax error.
func (e *FilePatternError) Unwrap() error { return e.Err }

func compileGlob(pattern string) (*fileGlob, error) {
	if pattern == "" || pattern == "*" || pattern == "**" {
		return nil, nil // every file
	}
	p := strings.TrimPrefix(pattern, "/")
	g := &fileGlob{basename: !strings.Contains(p, "/")}
	expr, err := globRegexp(p)
	if err != nil {
		return nil, &FilePatternError{Pattern: pattern, Err: err}
	}
	g.re, err = regexp.Compile("^" + expr + "$")
	if err != nil {
		return nil, &FilePatternError{Pattern: pattern, Err: err}
	}
	return g, nil
}

// match reports whether the file at workspace-relative rel is selected.
func (g *fileGlob) match(rel string) bool {
	if g == nil {
		return true
	}
	if g.basename {
		rel = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	return g.re.MatchString(rel)
}

func globRegexp(p string) (string, error) {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case strings.HasPrefix(p[i:], "**/") && (i == 0 || p[i-1] == '/'):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end == 0 && i+2 < len(p) { // "[]...]": ']' first is literal
				end = strings.IndexByte(p[i+2:], ']') + 1
			}
			if end < 0 {
				return "", fmt.Errorf("unclosed character class")
			}
			body := p[i+1 : i+1+end]
			if strings.HasPrefix(body, "!") {
				body = "^" + body[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(body, `\`, `\\`) + "]")
			i += end + 1
		case c == '{':
			depth++
			b.WriteString("(?:")
		case c == '}' && depth > 0:
			depth--
			b.WriteString(")")
		case c == ',' && depth > 0:
			b.WriteString("|")
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	if depth > 0 {
		return "", fmt.Errorf("unclosed alternation '{'")
	}
	return b.String(), nil
}
