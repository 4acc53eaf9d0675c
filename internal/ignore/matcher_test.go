package ignore

import (
	"strings"
	"sync"
	"testing"
)

func TestParseRulesFields(t *testing.T) {
	rules := ParseRules("sub/.gitignore", "/sub/", []byte("# c\n\n!keep/  \nbuild/\n"))
	want := []Rule{
		{Source: "sub/.gitignore", Line: 3, Text: "!keep/", Base: "sub", Negate: true, DirOnly: true},
		{Source: "sub/.gitignore", Line: 4, Text: "build/", Base: "sub", DirOnly: true},
	}
	if len(rules) != len(want) {
		t.Fatalf("ParseRules gave %d rules, want %d: %v", len(rules), len(want), rules)
	}
	for i, w := range want {
		r := rules[i]
		got := Rule{Source: r.Source, Line: r.Line, Text: r.Text, Base: r.Base, Negate: r.Negate, DirOnly: r.DirOnly}
		if got != w {
			t.Errorf("rule %d = %+v; want %+v", i, got, w)
		}
	}
	if got, want := rules[1].String(), "sub/.gitignore:4:build/"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

func TestMatchCleansPaths(t *testing.T) {
	m := NewMatcher(ParseRules(".clineignore", "", []byte("/secret\n")))
	tests := []struct {
		path    string
		ignored bool
	}{
		{"secret", true},
		{"./secret", true},
		{"a/../secret", true},
		{"/secret", true},
		{"secret/", true},
		{"x//../secret/y", true},
		{"a/secret", false},
		{"..", false},
		{"../secret", false},
		{"", false},
		{".", false},
		{"secret\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if _, got := m.Match(tt.path, false); got != tt.ignored {
				t.Errorf("Match(%q) ignored = %v; want %v", tt.path, got, tt.ignored)
			}
		})
	}
}

func TestNilMatcher(t *testing.T) {
	var m *Matcher
	if _, ign := m.Match("a", false); ign {
		t.Error("nil matcher ignored a path")
	}
	if m.Len() != 0 {
		t.Errorf("nil Len() = %d; want 0", m.Len())
	}
	m = m.WithFile(".gitignore", "", []byte("a\n"))
	if _, ign := m.MatchOne("a", false); !ign {
		t.Error("WithFile on nil matcher lost its rules")
	}
}

// TestWithFileStacks checks that stacking per-directory files shares the
// parent and lets siblings differ, and that a same-directory file added
// later (.ignore after .gitignore) wins as in ripgrep.
func TestWithFileStacks(t *testing.T) {
	root := NewMatcher().WithFile(".gitignore", "", []byte("*.log\n"))
	a := root.WithFile("a/.gitignore", "a", []byte("!*.log\n"))
	b := root.WithFile("b/.gitignore", "b", []byte("x\n")).WithFile("b/.ignore", "b", []byte("!x\n"))
	if same := root.WithFile("c/.gitignore", "c", []byte("# none\n")); same != root {
		t.Error("an empty file created a new matcher")
	}
	tests := []struct {
		name    string
		m       *Matcher
		path    string
		ignored bool
	}{
		{"root rule", root, "a/x.log", true},
		{"deeper negation", a, "a/x.log", false},
		{"sibling unaffected", b, "b/x.log", true},
		{"other dir untouched", a, "z/x.log", true},
		{".ignore after .gitignore", b, "b/x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := tt.m.Match(tt.path, false); got != tt.ignored {
				t.Errorf("Match(%q) ignored = %v; want %v", tt.path, got, tt.ignored)
			}
		})
	}
	if got, want := b.Len(), 3; got != want {
		t.Errorf("Len() = %d; want %d", got, want)
	}
}

// TestNewMatcherOrdersByDepth passes a deep file before a shallow one: the
// deep one must still win.
func TestNewMatcherOrdersByDepth(t *testing.T) {
	m := NewMatcher(
		ParseRules("a/.gitignore", "a", []byte("!x\n")),
		ParseRules(".gitignore", "", []byte("x\n")),
	)
	if r, ign := m.Match("a/x", false); ign || r.Source != "a/.gitignore" {
		t.Errorf("Match(a/x) = %v, %v; want a/.gitignore's negation to decide", r, ign)
	}
}

func TestMatcherConcurrent(t *testing.T) {
	m := NewMatcher(ParseRules(".gitignore", "", []byte("*.o\n!keep.o\nbuild/\n")))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				p := strings.Repeat("d/", (g+i)%5) + "x.o"
				if _, ign := m.Match(p, false); !ign {
					t.Errorf("Match(%q) not ignored", p)
					return
				}
			}
		})
	}
	wg.Wait()
}

func FuzzParseAndMatch(f *testing.F) {
	f.Add([]byte("*.txt\n!a/**/b\n[a-\\]\n"), "a/b/c.txt", true)
	f.Add([]byte("\\\n[[:alpha:]\n**/\n/**/x/**"), "x/y", false)
	f.Add([]byte("a\\ \\ \n\x00\r\n!\n"), "a  ", false)
	f.Fuzz(func(t *testing.T, data []byte, p string, isDir bool) {
		m := NewMatcher(ParseRules(".gitignore", "", data))
		m = m.WithFile("sub/.gitignore", "sub", data)
		r, ign := m.Match(p, isDir)
		if ign && r.Negate {
			t.Fatalf("Match(%q) ignored by negated rule %v", p, r)
		}
		if ign && r.Source == "" {
			t.Fatalf("Match(%q) ignored without a rule", p)
		}
		m.MatchOne(p, isDir)
	})
}

func TestWithDir(t *testing.T) {
	root, _ := workspace(t, map[string]string{
		".gitignore":     "*.log\n",
		"src/.gitignore": "gen/\n!keep.log\n",
		"src/.ignore":    "!gen/\n",
	})
	m, err := NewMatcher().WithDir(root, "", ".gitignore", ".ignore")
	if err != nil {
		t.Fatalf("WithDir(root): %v", err)
	}
	m, err = m.WithDir(root, "src", ".gitignore", ".ignore")
	if err != nil {
		t.Fatalf("WithDir(src): %v", err)
	}
	tests := []struct {
		path    string
		isDir   bool
		ignored bool
		source  string
	}{
		{"src/a.log", false, true, ".gitignore"},
		{"src/keep.log", false, false, "src/.gitignore"},
		{"src/gen", true, false, "src/.ignore"},
		{"gen", true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r, ign := m.Match(tt.path, tt.isDir)
			if ign != tt.ignored || r.Source != tt.source {
				t.Errorf("Match(%q) = %v, %v; want source %q, %v", tt.path, r, ign, tt.source, tt.ignored)
			}
		})
	}
	if _, err := m.WithDir(root, "src/.gitignore", "x"); err == nil {
		t.Error("WithDir under a file gave no error")
	}
}
