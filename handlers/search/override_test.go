package search

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// overrideTree is a git repository with every kind of entry ripgrep's
// ignore and hidden rules leave out: gitignored files and directories, an
// .ignore'd file, hidden files and directories, a negated rule, and .git
// itself, whose log holds the commit message "needle commit".
func overrideTree(t *testing.T) string {
	t.Helper()
	git := requireTool(t, "git")
	dir := t.TempDir()
	files := map[string]string{
		".gitignore":           "build/\n*.log\n!keep.log\ndeep/skip/\n",
		".ignore":              "local.txt\n",
		"README.md":            "needle in the readme\n",
		"app.log":              "needle in a gitignored log\n",
		"keep.log":             "needle in a log kept by a negated rule\n",
		"local.txt":            "needle in an .ignore'd file\n",
		"build/out.txt":        "needle in a gitignored directory\n",
		"build/sub/gen.md":     "needle deeper in a gitignored directory\n",
		".env":                 "needle in a hidden file\n",
		".hidden/notes.txt":    "needle in a hidden directory\n",
		".hidden/x.md":         "needle in a hidden directory's markdown\n",
		"src/a.go":             "package a // needle\n",
		"src/.secret.txt":      "needle in a hidden file below\n",
		"deep/skip/x.txt":      "needle below a nested ignored directory\n",
		"deep/keep/y.txt":      "needle below a kept directory\n",
		"node_modules/m/i.js":  "// needle in a dependency\n",
		"private/token.txt":    "needle in an excluded directory\n",
		"src/private.conf.txt": "needle in an excluded file\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "needle commit"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return dir
}

// TestGlobOverrideMatchesRipgrep: with GlobOverride a search chooses the
// files ripgrep given --glob chooses (Cline runs rg --glob <file_pattern
// or '*'>): gitignored, .ignore'd and hidden files, .git too, for every
// pattern and start directory; cold, and through an index twice (the
// second time from the cached tree), and an index shared with searches
// that follow the ignore rules keeps the two apart.
func TestGlobOverrideMatchesRipgrep(t *testing.T) {
	requireTool(t, "rg")
	dir := overrideTree(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ix := NewIndex(IndexOptions{})
	ix.racy = 0
	cases := []struct{ path, pattern string }{
		{"", ""}, {"", "*.txt"}, {"", "*.log"}, {"", "*.md"}, {"", ".*"}, {"", "build/**"},
		{"", "**/*.md"}, {"", "src/*"}, {"", "*.{go,md}"}, {"build", ""}, {"src", ""}, {"src", ".*"}, {"", "deep/**"},
		// Not {"deep", "*.txt"}: ripgrep before 14 lets the parent's
		// anchored "deep/skip/" rule go when searching deep (cline@2.18.0
		// runs ripgrep 15, which toolgate agrees with).
	}
	for _, c := range cases {
		rgArgs := []string{"-e", "needle", "--glob", c.pattern, dotIfEmpty(c.path)}
		if c.pattern == "" {
			rgArgs[3] = "*"
		}
		want := rgMatches(t, dir, rgArgs...)
		if !slices.ContainsFunc(want, func(m string) bool { return strings.HasPrefix(m, ".git/") }) && c.pattern == "" && c.path == "" {
			t.Fatalf("rg found nothing in .git: %v; the tree does not test it", want)
		}
		name := c.path + " " + c.pattern
		opts := Options{Regex: "needle", Path: c.path, FilePattern: c.pattern, GlobOverride: true}
		diffSets(t, name+" (cold)", ourMatches(t, root, opts), want)
		opts.Index = ix
		diffSets(t, name+" (indexed)", ourMatches(t, root, opts), want)
		diffSets(t, name+" (indexed again)", ourMatches(t, root, opts), want)
		// The same index still answers a search that follows the rules.
		plain := Options{Regex: "needle", Path: c.path, FilePattern: c.pattern, Index: ix}
		diffSets(t, name+" (ignore rules, indexed)", ourMatches(t, root, plain), ourMatches(t, root, Options{Regex: "needle", Path: c.path, FilePattern: c.pattern}))
	}
}

// TestGlobOverrideExcludes: the caller's exclusions (.clineignore, deny
// rules) hide files from a search whose glob overrides the ignore rules,
// cold and indexed: an excluded file's content shows in no result.
func TestGlobOverrideExcludes(t *testing.T) {
	dir := overrideTree(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	exclude := func(rel string, isDir bool) bool {
		return rel == "private" || strings.HasPrefix(rel, "private/") || rel == "src/private.conf.txt" || rel == ".env"
	}
	ix := NewIndex(IndexOptions{})
	for _, idx := range []*Index{nil, ix, ix} {
		for _, pattern := range []string{"", "*.txt", ".*"} {
			res, err := Search(context.Background(), root, Options{Regex: "needle", FilePattern: pattern, GlobOverride: true, Exclude: exclude, Index: idx})
			if err != nil {
				t.Fatal(err)
			}
			out := res.Format()
			for _, secret := range []string{"excluded directory", "excluded file", "hidden file\n", "token.txt", "private.conf", ".env"} {
				if strings.Contains(out, secret) {
					t.Errorf("pattern %q (index %v): result shows %q:\n%s", pattern, idx != nil, secret, out)
				}
			}
			if pattern == "" && !strings.Contains(out, "gitignored log") {
				t.Errorf("pattern %q: the gitignored log is not searched:\n%s", pattern, out)
			}
		}
	}
}
