package ignore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Matcher decides whether workspace paths are ignored. It is immutable and
// safe for concurrent use; a nil *Matcher ignores nothing. Adding a file
// (WithFile, WithRules) returns a new Matcher that shares the old one, so a
// directory walker can stack each directory's ignore file as it descends
// without re-parsing its parents.
type Matcher struct {
	parent *Matcher // rules of lower precedence
	base   string   // directory all rules of this node are relative to
	rules  []Rule   // one ignore file (or the part of one with this base)
	count  int      // rules in this node and its parents
}

// NewMatcher builds a matcher from rule lists, one per ignore file, as
// returned by ParseRules. Files in deeper directories take precedence over
// shallower ones; among files of the same directory a later argument takes
// precedence over an earlier one (pass .gitignore before .ignore to honour
// them the way ripgrep does).
func NewMatcher(lists ...[]Rule) *Matcher {
	var runs [][]Rule
	for _, l := range lists {
		runs = append(runs, splitByBase(l)...)
	}
	slices.SortStableFunc(runs, func(a, b []Rule) int {
		return depth(a[0].Base) - depth(b[0].Base)
	})
	var m *Matcher
	for _, r := range runs {
		m = m.push(r)
	}
	return m
}

// WithRules returns a matcher holding m's rules and then rules, which take
// precedence over all of m's. Walkers add directories shallow to deep, so a
// deeper file wins as in git. m may be nil.
func (m *Matcher) WithRules(rules []Rule) *Matcher {
	for _, r := range splitByBase(rules) {
		m = m.push(r)
	}
	return m
}

// WithFile parses an ignore file (see ParseRules) and adds its rules with
// WithRules. A file without rules returns m itself.
func (m *Matcher) WithFile(source, base string, data []byte) *Matcher {
	return m.WithRules(ParseRules(source, base, data))
}

// Len returns the number of rules in the matcher.
func (m *Matcher) Len() int {
	if m == nil {
		return 0
	}
	return m.count
}

// Match reports whether the path is ignored: by a rule matching it, or
// because one of its parent directories is ignored (git cannot re-include a
// path below an excluded directory). isDir says whether the path names a
// directory, which rules ending in "/" require. The returned rule is the
// deciding one: the rule that ignored the path or its topmost ignored
// parent, or a negated rule that re-included the path (then ignored is
// false); it is the zero Rule when no rule matched.
//
// The path is cleaned first, so "a/../b" is judged as "b" and a leading "/"
// means the workspace root; a path that leaves the workspace ("..",
// "../x") or holds a NUL byte is never ignored here: confinement is the
// caller's job.
func (m *Matcher) Match(p string, isDir bool) (rule Rule, ignored bool) {
	return m.match(p, isDir, nil)
}

// MatchLazy is Match for a caller that has not looked up whether the path
// is a directory: isDir is called only when a rule ending in "/" matches
// the path itself (at most once), so a path no such rule names costs no
// lookup.
func (m *Matcher) MatchLazy(p string, isDir func() bool) (rule Rule, ignored bool) {
	return m.match(p, false, isDir)
}

func (m *Matcher) match(p string, isDir bool, lazyDir func() bool) (rule Rule, ignored bool) {
	p, ok := cleanPath(p)
	if !ok || m == nil {
		return Rule{}, false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if r, found := m.decide(p[:i], true, nil); found && !r.Negate {
			return *r, true
		}
	}
	r, found := m.decide(p, isDir, lazyDir)
	if !found {
		return Rule{}, false
	}
	return *r, !r.Negate
}

// MatchOne is Match without the check of parent directories, for a walker
// that has already skipped every ignored directory on the way down; it is
// then equivalent to Match and cheaper on deep trees.
func (m *Matcher) MatchOne(p string, isDir bool) (rule Rule, ignored bool) {
	p, ok := cleanPath(p)
	if !ok || m == nil {
		return Rule{}, false
	}
	return m.result(p, isDir)
}

func (m *Matcher) result(p string, isDir bool) (Rule, bool) {
	r, found := m.decide(p, isDir, nil)
	if !found {
		return Rule{}, false
	}
	return *r, !r.Negate
}

// decide returns the rule of highest precedence matching p: files from the
// newest node down, lines within a file from last to first. Whether p is
// a directory is isDir, or when lazyDir is set its answer, asked once and
// only for a rule ending in "/" whose pattern matches p.
func (m *Matcher) decide(p string, isDir bool, lazyDir func() bool) (*Rule, bool) {
	name := p[strings.LastIndexByte(p, '/')+1:]
	asked := lazyDir == nil
	for n := m; n != nil; n = n.parent {
		if !below(p, n.base) {
			continue
		}
		for i := len(n.rules) - 1; i >= 0; i-- {
			r := &n.rules[i]
			if r.DirOnly && asked && !isDir {
				continue
			}
			if r.matches(p, name) {
				if r.DirOnly && !asked {
					isDir, asked = lazyDir(), true
					if !isDir {
						continue
					}
				}
				return r, true
			}
		}
	}
	return nil, false
}

func (m *Matcher) push(rules []Rule) *Matcher {
	if len(rules) == 0 {
		return m
	}
	return &Matcher{parent: m, base: rules[0].Base, rules: rules, count: m.Len() + len(rules)}
}

// below reports whether p lies strictly inside directory base.
func below(p, base string) bool {
	if base == "" {
		return true
	}
	return len(p) > len(base) && p[len(base)] == '/' && p[:len(base)] == base
}

// splitByBase cuts a rule list into runs sharing one Base, so that every
// Matcher node can test its base once per path instead of once per rule.
func splitByBase(rules []Rule) [][]Rule {
	var runs [][]Rule
	start := 0
	for i := 1; i <= len(rules); i++ {
		if i == len(rules) || rules[i].Base != rules[start].Base {
			runs = append(runs, slices.Clip(rules[start:i]))
			start = i
		}
	}
	return runs
}

func depth(base string) int {
	if base == "" {
		return 0
	}
	return strings.Count(base, "/") + 1
}

// cleanPath normalizes a workspace-relative path. It reports false for the
// root itself, for paths leaving the workspace and for paths with a NUL.
func cleanPath(p string) (string, bool) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", false
	}
	p = path.Clean(p)
	p = strings.TrimLeft(p, "/")
	if p == "" || p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// Fingerprint identifies the rules m holds (their sources, bases, texts
// and order): two matchers with the same rules have the same one. A
// process confined under one set of rules compares it with the rules of
// a later call to know whether they changed.
func (m *Matcher) Fingerprint() string {
	h := sha256.New()
	for n := m; n != nil; n = n.parent {
		for _, r := range n.rules {
			fmt.Fprintf(h, "%q %q %q %d %v\n", r.Source, r.Base, r.Text, r.Line, r.Negate)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
