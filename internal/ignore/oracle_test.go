package ignore

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// scenario is one workspace: ignore files and the paths to judge. A path
// ending in "/" is a directory; parents of every path are directories too.
type scenario struct {
	name  string
	files map[string]string // ignore file (workspace-relative) -> contents
	paths []string
}

// verdict is what git check-ignore -v -n says about one path.
type verdict struct {
	source string // "" when no pattern matched
	line   int
	text   string
}

func (v verdict) ignored() bool { return v.source != "" && !strings.HasPrefix(v.text, "!") }

// requireTool skips the test when a Debian tool is missing locally and fails
// it in CI, where the tool is installed.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("%s not installed: %v", name, err)
		}
		t.Fatalf("%s not installed in CI: %v", name, err)
	}
}

// query is one path of one scenario, as git sees it (prefixed by the
// scenario's directory) and as the matcher under test sees it.
type query struct {
	sc    int
	path  string // scenario-relative
	isDir bool
}

// layout writes every scenario into its own directory "sNNNN/" of one git
// work tree and returns the queries: each path, each parent directory and
// each ignore file. A scenario in a subdirectory behaves as it would at the
// root, because no ignore file lies above it.
func layout(t *testing.T, dir string, scs []scenario) []query {
	t.Helper()
	var qs []query
	for i, sc := range scs {
		root := filepath.Join(dir, scDir(i))
		isDir := map[string]bool{}
		add := func(p string, d bool) { isDir[p] = isDir[p] || d }
		for _, p := range sc.paths {
			add(strings.TrimSuffix(p, "/"), strings.HasSuffix(p, "/"))
		}
		for f := range sc.files {
			add(f, false)
		}
		for p := range isDir {
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				add(d, true)
			}
		}
		// Only directories and ignore files need to exist: git takes a
		// path it cannot lstat for a non-directory, and that is cheaper
		// than creating tens of thousands of files.
		for p, d := range isDir {
			if d {
				mustMkdir(t, filepath.Join(root, filepath.FromSlash(p)))
			}
		}
		for f, data := range sc.files {
			if isDir[f] {
				continue
			}
			full := filepath.Join(root, filepath.FromSlash(f))
			mustMkdir(t, filepath.Dir(full))
			if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for p := range isDir {
				if !yield(p) {
					return
				}
			}
		})
		for _, p := range keys {
			qs = append(qs, query{sc: i, path: p, isDir: isDir[p]})
		}
	}
	return qs
}

func scDir(i int) string { return fmt.Sprintf("s%04d", i) }

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// gitVerdicts runs one git check-ignore over all queries.
func gitVerdicts(t *testing.T, dir string, qs []query) []verdict {
	t.Helper()
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	git := func(stdin []byte, args ...string) []byte {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			err = nil // check-ignore: no path ignored
		}
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, stderr.Bytes())
		}
		return out
	}
	git(nil, "init", "-q")
	var in bytes.Buffer
	for _, q := range qs {
		in.WriteString(scDir(q.sc) + "/" + q.path + "\x00")
	}
	out := git(in.Bytes(), "-c", "core.excludesFile="+empty, "check-ignore",
		"--no-index", "-v", "-n", "-z", "--stdin")
	fields := strings.Split(string(out), "\x00")
	if len(fields) != 4*len(qs)+1 {
		t.Fatalf("git check-ignore gave %d fields, want %d", len(fields), 4*len(qs)+1)
	}
	vs := make([]verdict, len(qs))
	for i, q := range qs {
		f := fields[4*i : 4*i+4]
		if want := scDir(q.sc) + "/" + q.path; f[3] != want {
			t.Fatalf("git check-ignore answered for %q, want %q", f[3], want)
		}
		if f[0] == "" {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("git check-ignore line number %q: %v", f[1], err)
		}
		vs[i] = verdict{source: strings.TrimPrefix(f[0], scDir(q.sc)+"/"), line: n, text: f[2]}
	}
	return vs
}

// scenarioMatcher builds the matcher for a scenario, each ignore file with
// its directory as base, optionally below a prefix directory.
func scenarioMatcher(sc scenario, prefix string) *Matcher {
	var lists [][]Rule
	for _, f := range slices.Sorted(mapKeys(sc.files)) {
		src := path.Join(prefix, f)
		lists = append(lists, ParseRules(src, path.Dir(src), []byte(sc.files[f])))
	}
	return NewMatcher(lists...)
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// compareWithGit checks Match (at the root and below a prefix directory) and
// MatchOne (where a walker would call it) against git for every query.
func compareWithGit(t *testing.T, scs []scenario) {
	t.Helper()
	requireTool(t, "git")
	dir := t.TempDir()
	qs := layout(t, dir, scs)
	vs := gitVerdicts(t, dir, qs)
	ignored := 0
	for _, v := range vs {
		if v.ignored() {
			ignored++
		}
	}
	t.Logf("%d scenarios, %d paths judged by git, %d ignored", len(scs), len(qs), ignored)
	byScenario := map[int][]int{}
	for i, q := range qs {
		byScenario[q.sc] = append(byScenario[q.sc], i)
	}
	for si, sc := range scs {
		t.Run(sc.name, func(t *testing.T) {
			root, sub := scenarioMatcher(sc, ""), scenarioMatcher(sc, "w/s")
			walkerSkips := map[string]bool{}
			for _, qi := range byScenario[si] {
				q, want := qs[qi], vs[qi]
				got := checkOne(t, root, q.path, q.isDir, want, "")
				checkOne(t, sub, "w/s/"+q.path, q.isDir, want, "w/s/")
				if !underAny(q.path, walkerSkips) {
					r, ign := root.MatchOne(q.path, q.isDir)
					if ign != want.ignored() || r.Line != want.line {
						t.Errorf("MatchOne(%q, %v) = %v, %v; want %v, %v", q.path, q.isDir, r, ign, want, want.ignored())
					}
				}
				if got && q.isDir {
					walkerSkips[q.path] = true
				}
			}
		})
	}
}

func underAny(p string, dirs map[string]bool) bool {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if dirs[d] {
			return true
		}
	}
	return false
}

func checkOne(t *testing.T, m *Matcher, p string, isDir bool, want verdict, prefix string) bool {
	t.Helper()
	r, ign := m.Match(p, isDir)
	got := verdict{}
	if r.Source != "" {
		got = verdict{source: strings.TrimPrefix(r.Source, prefix), line: r.Line, text: r.Text}
	}
	if ign != want.ignored() || got != want {
		t.Errorf("Match(%q, dir=%v) = %+v, ignored=%v; git says %+v, ignored=%v",
			p, isDir, got, ign, want, want.ignored())
	}
	// MatchLazy decides alike, asking whether p is a directory at most
	// once and only when a rule ending in "/" matches p.
	asked := 0
	lr, lign := m.MatchLazy(p, func() bool { asked++; return isDir })
	if lr != r || lign != ign || asked > 1 {
		t.Errorf("MatchLazy(%q, dir=%v) = %+v, %v (asked %d times); Match gave %+v, %v", p, isDir, lr, lign, asked, r, ign)
	}
	if asked == 1 && !dirRuleMatches(m, p) {
		t.Errorf("MatchLazy(%q) asked whether it is a directory; no rule ending in / matches it", p)
	}
	return ign
}

// dirRuleMatches reports whether a rule ending in "/" matches p itself.
func dirRuleMatches(m *Matcher, p string) bool {
	p, _ = cleanPath(p)
	for n := m; n != nil; n = n.parent {
		for i := range n.rules {
			if r := &n.rules[i]; r.DirOnly && below(p, n.base) && r.matches(p, path.Base(p)) {
				return true
			}
		}
	}
	return false
}
