package search

import (
	"os"
	"strings"

	"github.com/toolgate/toolgate/internal/ignore"
)

// ignoreState is the ignore rules in force in one directory, stacked the way
// ripgrep stacks them: each kind of ignore file forms its own stack (a
// deeper file beats a shallower one) and the kinds rank .rgignore over
// .ignore over .gitignore over .git/info/exclude. It is immutable, so
// sibling directories share their parent's state.
type ignoreState struct {
	rg, ign, git, exclude *ignore.Matcher
	// inRepo says a .git exists here or above, which ripgrep requires before
	// it honours .gitignore files.
	inRepo bool
}

// dirReader reads a file in the directory being entered; it returns nil
// when the file is missing or unreadable.
type dirReader func(name string) []byte

// enter returns the state for directory dir (workspace-relative, "" for the
// root) given the names it holds and a way to read them.
func (s *ignoreState) enter(dir string, names map[string]bool, read dirReader) *ignoreState {
	hasGit := names[".git"]
	if !hasGit && !names[".gitignore"] && !names[".ignore"] && !names[".rgignore"] {
		return s
	}
	next := *s
	if hasGit {
		// A repository root: .gitignore files above it stop applying.
		next.inRepo, next.git, next.exclude = true, nil, nil
		if data := read(".git/info/exclude"); data != nil {
			next.exclude = ignore.NewMatcher(ignore.ParseRules(join(dir, ".git/info/exclude"), dir, data))
		}
	}
	add := func(m *ignore.Matcher, name string) *ignore.Matcher {
		if !names[name] {
			return m
		}
		if data := read(name); data != nil {
			return m.WithFile(join(dir, name), dir, data)
		}
		return m
	}
	next.git = add(next.git, ".gitignore")
	next.ign = add(next.ign, ".ignore")
	next.rg = add(next.rg, ".rgignore")
	return &next
}

// verdict is an ignore decision: ignored, whitelisted by a negated rule (which
// also lets a hidden entry through, as in ripgrep), or neither.
type verdict int

const (
	noVerdict verdict = iota
	ignored
	whitelisted
)

func (s *ignoreState) match(rel string, isDir bool) verdict {
	for _, m := range [...]*ignore.Matcher{s.rg, s.ign, s.gitIf(), s.excludeIf()} {
		if m == nil {
			continue
		}
		r, ign := m.MatchOne(rel, isDir)
		if ign {
			return ignored
		}
		if r.Negate {
			return whitelisted
		}
	}
	return noVerdict
}

func (s *ignoreState) gitIf() *ignore.Matcher {
	if s.inRepo {
		return s.git
	}
	return nil
}

func (s *ignoreState) excludeIf() *ignore.Matcher {
	if s.inRepo {
		return s.exclude
	}
	return nil
}

// skip applies ignore rules and the hidden-entry rule to one entry.
func (s *ignoreState) skip(rel, name string, isDir bool) bool {
	switch s.match(rel, isDir) {
	case ignored:
		return true
	case whitelisted:
		return false
	}
	return strings.HasPrefix(name, ".")
}

// rootReader reads files of directory dir through the workspace root.
func rootReader(root *os.Root, dir string) dirReader {
	return func(name string) []byte {
		data, err := root.ReadFile(join(dir, name))
		if err != nil {
			return nil
		}
		return data
	}
}

// parentState builds the ignore state of dir from the workspace root down,
// so a search below the root still honours the ignore files above it.
func parentState(root *os.Root, dir string) (*ignoreState, error) {
	st := &ignoreState{}
	cur := ""
	for {
		names, err := dirNames(root, cur)
		if err != nil {
			return nil, err
		}
		st = st.enter(cur, names, rootReader(root, cur))
		if cur == dir {
			return st, nil
		}
		rest := strings.TrimPrefix(dir, cur)
		rest = strings.TrimPrefix(rest, "/")
		next, _, _ := strings.Cut(rest, "/")
		cur = join(cur, next)
	}
}

func dirNames(root *os.Root, dir string) (map[string]bool, error) {
	f, err := root.Open(dotIfEmpty(dir))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m, nil
}

// join appends a name (or a clean relative path) to a clean directory; it
// skips path.Join's cleaning, which shows in walks of large trees.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func dotIfEmpty(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}
