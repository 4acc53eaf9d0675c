package search

import (
	"fmt"
	"regexp"
	"strings"
)

// PatternError reports a pattern that ripgrep's Rust regex engine would
// accept differently or that RE2 cannot run; Construct names the offending
// syntax so the model can rewrite its pattern.
type PatternError struct {
	Pattern   string
	Construct string
	Reason    string
}

func (e *PatternError) Error() string {
	if e.Construct == "" {
		return fmt.Sprintf("regex parse error in %q: %s", e.Pattern, e.Reason)
	}
	return fmt.Sprintf("regex parse error in %q: %s %s", e.Pattern, e.Construct, e.Reason)
}

// CompilePattern translates a Rust-syntax regex into an RE2 regexp with the
// same meaning on single lines. Unicode classes (\w \d \s and their
// negations) are expanded because Go's are ASCII-only while Rust's are
// Unicode-aware by default.
func CompilePattern(pattern string) (*regexp.Regexp, error) {
	return compile(pattern, false)
}

// CompileMultiline is CompilePattern for a search of whole texts (ripgrep
// -U): a newline, literal or \n, is then a character like any other.
func CompileMultiline(pattern string) (*regexp.Regexp, error) {
	return compile(pattern, true)
}

func compile(pattern string, multiline bool) (*regexp.Regexp, error) {
	translated, err := translate(pattern, multiline)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(translated)
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Reason: strings.TrimPrefix(err.Error(), "error parsing regexp: ")}
	}
	return re, nil
}

// translator walks a pattern once, copying it to out with Rust-only syntax
// rewritten; it tracks only what changes meaning: escapes, groups, classes.
type translator struct {
	src     string
	i       int
	out     strings.Builder
	unicode bool
	// multiline lets newlines match (a search of whole texts).
	multiline bool
}

func translate(pattern string, multiline bool) (string, error) {
	t := &translator{src: pattern, unicode: !disablesUnicode(pattern), multiline: multiline}
	for t.i < len(t.src) {
		if err := t.step(); err != nil {
			return "", err
		}
	}
	return t.out.String(), nil
}

// disablesUnicode reports a (?-u) style flag group; with Unicode off Rust's
// classes are ASCII, which is what RE2 already does.
func disablesUnicode(p string) bool {
	for i := 0; i+2 < len(p); i++ {
		if p[i] == '(' && p[i+1] == '?' {
			j := i + 2
			neg := false
			for j < len(p) && p[j] != ')' && p[j] != ':' {
				if p[j] == '-' {
					neg = true
				} else if p[j] == 'u' && neg {
					return true
				}
				j++
			}
		}
	}
	return false
}

func (t *translator) fail(construct, reason string) error {
	return &PatternError{Pattern: t.src, Construct: construct, Reason: reason}
}

func (t *translator) step() error {
	c := t.src[t.i]
	switch c {
	case '\\':
		return t.escape(false)
	case '(':
		return t.group()
	case '[':
		return t.class()
	case '{':
		return t.brace()
	case '\n':
		if !t.multiline {
			return t.fail(`the literal "\n"`, "is not allowed in a regex (searches are line by line)")
		}
	}
	t.out.WriteByte(c)
	t.i++
	return nil
}

var lookaround = []struct{ prefix, name string }{
	{"(?<=", "look-behind (?<=...)"},
	{"(?<!", "negative look-behind (?<!...)"},
	{"(?=", "look-ahead (?=...)"},
	{"(?!", "negative look-ahead (?!...)"},
	{"(?P=", "named backreference (?P=name)"},
	{"(?P>", "subroutine call (?P>name)"},
	{"(?>", "atomic group (?>...)"},
}

func (t *translator) group() error {
	rest := t.src[t.i:]
	for _, l := range lookaround {
		if strings.HasPrefix(rest, l.prefix) {
			return t.fail(l.name, "is not supported (Rust regex and RE2 have no look-around or backreferences)")
		}
	}
	if strings.HasPrefix(rest, "(?") {
		j := 2
		for j < len(rest) && rest[j] != ')' && rest[j] != ':' {
			if rest[j] == 'x' {
				return t.fail("verbose flag (?x)", "is not supported; remove whitespace and comments from the pattern")
			}
			if rest[j] == '<' || rest[j] == 'P' {
				break // named group
			}
			j++
		}
		// RE2 has no u flag: Unicode mode is expressed by the translation itself.
		if j < len(rest) && (rest[j] == ')' || rest[j] == ':') {
			flags := strings.NewReplacer("u", "").Replace(rest[2:j])
			if flags == "" || flags == "-" {
				if rest[j] == ')' {
					t.i += j + 1
					return nil
				}
				t.out.WriteString("(?:")
				t.i += j + 1
				return nil
			}
			flags = strings.TrimSuffix(flags, "-")
			t.out.WriteString("(?" + flags + string(rest[j]))
			t.i += j + 1
			return nil
		}
	}
	t.out.WriteByte('(')
	t.i++
	return nil
}

// brace keeps Rust's rule that a '{' must start a counted repetition; RE2
// would silently read a stray brace as a literal and match differently.
func (t *translator) brace() error {
	rest := t.src[t.i:]
	end := strings.IndexByte(rest, '}')
	if end > 1 && validRepeat(rest[1:end]) {
		t.out.WriteString(rest[:end+1])
		t.i += end + 1
		return nil
	}
	return t.fail("an unescaped '{'", `must start a repetition like {2} or {1,3}; write \{ for a literal brace`)
}

func validRepeat(s string) bool {
	lo, hi, comma := s, "", false
	if k := strings.IndexByte(s, ','); k >= 0 {
		lo, hi, comma = s[:k], s[k+1:], true
	}
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	if lo == "" || !allDigits(lo) {
		return false
	}
	return !comma || hi == "" || allDigits(hi)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// class copies a bracket expression, expanding Unicode escapes inside it and
// rejecting Rust's nested classes and set operations, which RE2 would read
// as literal characters.
func (t *translator) class() error {
	t.out.WriteByte('[')
	t.i++
	if t.i < len(t.src) && t.src[t.i] == '^' {
		t.out.WriteByte('^')
		t.i++
	}
	if t.i < len(t.src) && t.src[t.i] == ']' {
		t.out.WriteString(`\]`)
		t.i++
	}
	for t.i < len(t.src) {
		rest := t.src[t.i:]
		switch {
		case rest[0] == ']':
			t.out.WriteByte(']')
			t.i++
			return nil
		case rest[0] == '\\':
			if err := t.escape(true); err != nil {
				return err
			}
		case strings.HasPrefix(rest, "[:"):
			end := strings.Index(rest, ":]")
			if end < 0 {
				return t.fail("'[' inside a class", "starts a nested class, which is not supported; write \\[ for a literal bracket")
			}
			t.out.WriteString(rest[:end+2])
			t.i += end + 2
		case rest[0] == '[':
			return t.fail("a nested class [...[...]]", "is not supported; write \\[ for a literal bracket")
		case strings.HasPrefix(rest, "&&"), strings.HasPrefix(rest, "--"), strings.HasPrefix(rest, "~~"):
			return t.fail("class set operation "+rest[:2], "is not supported")
		case rest[0] == '\n':
			t.out.WriteString(`\n`)
			t.i++
		default:
			t.out.WriteByte(rest[0])
			t.i++
		}
	}
	return t.fail("an unclosed '['", "has no matching ']'")
}
