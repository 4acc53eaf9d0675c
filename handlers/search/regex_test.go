package search

import (
	"errors"
	"strings"
	"testing"
)

func TestCompilePatternRejects(t *testing.T) {
	tests := []struct{ pattern, construct string }{
		{`foo(?=bar)`, "look-ahead"},
		{`foo(?!bar)`, "negative look-ahead"},
		{`(?<=a)b`, "look-behind"},
		{`(?<!a)b`, "negative look-behind"},
		{`(a)\1`, `backreference \1`},
		{`(?P<x>a)(?P=x)`, "named backreference"},
		{`[a[b]]`, "nested class"},
		{`[a-z&&[^aeiou]]`, "class set operation &&"},
		{`a{`, "unescaped '{'"},
		{`a\nb`, `literal "\n"`},
		{`(?x) a b`, "verbose flag"},
		{`\<word`, `word-boundary assertion \<`},
		{`a(`, "missing closing )"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			_, err := CompilePattern(tt.pattern)
			var pe *PatternError
			if !errors.As(err, &pe) {
				t.Fatalf("CompilePattern(%q) error = %v, want a *PatternError", tt.pattern, err)
			}
			if !strings.Contains(err.Error(), tt.construct) {
				t.Errorf("error %q does not name %q", err, tt.construct)
			}
		})
	}
}

func TestCompilePatternTranslates(t *testing.T) {
	tests := []struct {
		pattern, line string
		want          bool
	}{
		{`\w+`, "日本", true},
		{`^\W+$`, "日本", false},
		{`^\d$`, "٣", true},
		{`^\s$`, "\u3000", true},
		{`^[\w-]+$`, "crème-brûlée", true},
		{`^[^\s]+$`, "a\u00a0b", false},
		{`\u00e9`, "é", true},
		{`\u{1F600}`, "😀", true},
		{`\U0001F600`, "😀", true},
		{`\p{Greek}`, "λ", true},
		{`\p{Letter}`, "ж", true},
		{`(?i)ÉCOLE`, "école", true},
		{`(?u)\w`, "é", true},
		{`(?-u:\w)`, "é", false},
		{`a{2,3}`, "aa", true},
		{`\{x\}`, "{x}", true},
		{`(?P<name>ab)`, "ab", true},
		{`[[:alpha:]]+`, "abc", true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := CompilePattern(tt.pattern)
			if err != nil {
				t.Fatalf("CompilePattern(%q): %v", tt.pattern, err)
			}
			if got := re.MatchString(tt.line); got != tt.want {
				t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.line, got, tt.want)
			}
		})
	}
}

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		pattern    string
		want       []string
		fold, pure bool
	}{
		{pattern: `hello`, want: []string{"hello"}, pure: true},
		{pattern: `func \w+Error\(`, want: []string{"Error("}},
		{pattern: `foo|barbaz`, want: []string{"foo", "barbaz"}},
		{pattern: `(?i)HeLLo`, want: []string{"hello"}, fold: true, pure: true},
		{pattern: `(?i)deadline exceeded`, want: []string{"deadline exceeded"}, fold: true, pure: true},
		// Runes with case variants that lowering leaves apart cut the literal.
		{pattern: `(?i)école`, want: []string{"cole"}, fold: true},
		{pattern: `(?i)kelvin`, want: []string{"elvin"}, fold: true},
		{pattern: `(?i)statuses`, want: []string{"tatu"}, fold: true},
		{pattern: `(?i)kks`, want: nil},
		// Dotless and dotted i fold with nothing in Go's regexp: kept as is.
		{pattern: `(?i)ıd`, want: []string{"ıd"}, fold: true, pure: true},
		{pattern: `(?i)İD`, want: []string{"İd"}, fold: true, pure: true},
		{pattern: `(?i:foo)|Bar`, want: []string{"foo", "bar"}, fold: true},
		{pattern: `(?i)func \w+Error\(`, want: []string{"error("}, fold: true},
		{pattern: `[a-z]+`, want: nil},
		{pattern: `x*`, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			m, err := newMatcher(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range m.lits {
				got = append(got, string(l))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") || m.fold != tt.fold || m.pure != tt.pure {
				t.Errorf("literals = %q fold %v pure %v, want %q fold %v pure %v", got, m.fold, m.pure, tt.want, tt.fold, tt.pure)
			}
		})
	}
}

func TestAlsoRequiredLiterals(t *testing.T) {
	tests := []struct{ pattern, also string }{
		{`func \w+Error\(`, "func "},
		{`(a+b) \d+ (cde|fgh) ijk`, "a, , "},
		{`hello`, ""},
		{`(?i)func \w+Error\(`, ""}, // folded parts are not checked exactly
		{`foo|bar baz`, ""},
	}
	for _, tt := range tests {
		m, err := newMatcher(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range m.also {
			got = append(got, string(l))
		}
		if strings.Join(got, ",") != tt.also {
			t.Errorf("%s: also = %q, want %q", tt.pattern, got, tt.also)
		}
	}
}
