package ignore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
)

// ClineignoreFile is the workspace-relative name of Cline's ignore file.
const ClineignoreFile = ".clineignore"

// includeDirective starts a .clineignore line that splices another file's
// rules in at that point, as Cline does ("!include .gitignore").
const includeDirective = "!include "

// maxIncludeDepth bounds nesting even without a cycle, so a long chain of
// includes cannot make a load arbitrarily slow.
const maxIncludeDepth = 16

// maxIgnoreFileSize caps each file read, so a huge or special file in the
// workspace cannot exhaust memory.
const maxIgnoreFileSize = 4 << 20

// selfRule is the rule Cline adds after a .clineignore's own
// (ClineIgnoreController.loadClineIgnore): the file covers itself, so a
// model can neither read nor rewrite the rules that bind it, and listings
// show it locked. An empty file adds nothing, as Cline then ignores
// nothing. Last in the file's rules, no negation in the file undoes it.
var selfRule, _ = compileRule(ClineignoreFile, "", 0, ClineignoreFile)

// Self reports whether r is the rule a .clineignore adds for itself: it
// keeps the model from the rules, not from a secret.
func (r Rule) Self() bool { return r.Source == ClineignoreFile && r.Line == 0 }

// loader reads ignore files with includes; deps collects every file it
// tried to read, so a watcher knows what to watch.
type loader struct {
	root  *os.Root
	deps  []string
	errs  []error
	stack []string // files being expanded, for cycle detection
}

// load reads the top-level files (the Watcher's: .clineignore, then the
// extra files) and returns the matcher, the files it depended on (present
// or not) and the joined errors.
//
// The files are workspace-relative, read through root, later files taking
// precedence, into one matcher whose rules are relative to the workspace
// root. A missing file contributes no rules. A line "!include FILE"
// splices in FILE's rules at that point; FILE is workspace-relative and
// may include further files.
//
// A missing or unreadable include, an include cycle or an include leaving
// the workspace is reported in the error, which names the file and line;
// the matcher returned alongside still holds every rule that could be read,
// so a caller may keep enforcing it (the matcher is nil only if root is).
func load(root *os.Root, files []string) (*Matcher, []string, error) {
	if root == nil {
		return nil, nil, errors.New("ignore: nil workspace root")
	}
	l := &loader{root: root}
	var lists [][]Rule
	for _, f := range files {
		name, err := localName(f)
		if err != nil {
			l.errs = append(l.errs, fmt.Errorf("ignore file %q: %w", f, err))
			continue
		}
		data, err := l.read(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			l.errs = append(l.errs, err)
			continue
		}
		rules := l.expand(name, data)
		if name == ClineignoreFile && len(data) > 0 {
			rules = append(rules, selfRule)
		}
		lists = append(lists, rules)
	}
	m := NewMatcher(lists...)
	if m == nil {
		m = &Matcher{}
	}
	return m, l.deps, errors.Join(l.errs...)
}

// expand parses one file's data, replacing include lines by the included
// file's rules.
func (l *loader) expand(name string, data []byte) []Rule {
	l.stack = append(l.stack, name)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	var rules []Rule
	eachLine(data, func(line int, text string) {
		if target, ok := strings.CutPrefix(strings.TrimSpace(text), includeDirective); ok {
			rules = append(rules, l.include(name, line, strings.TrimSpace(target))...)
			return
		}
		if r, ok := compileRule(name, "", line, text); ok {
			rules = append(rules, r)
		}
	})
	return rules
}

func (l *loader) include(from string, line int, target string) []Rule {
	fail := func(format string, args ...any) []Rule {
		l.errs = append(l.errs, fmt.Errorf("%s:%d: !include %q: %s", from, line, target, fmt.Sprintf(format, args...)))
		return nil
	}
	name, err := localName(target)
	if err != nil {
		return fail("%v", err)
	}
	for i, s := range l.stack {
		if s == name {
			return fail("include cycle %s", strings.Join(append(l.stack[i:], name), " -> "))
		}
	}
	if len(l.stack) >= maxIncludeDepth {
		return fail("includes nested deeper than %d", maxIncludeDepth)
	}
	data, err := l.read(name)
	if err != nil {
		return fail("%v", err)
	}
	return l.expand(name, data)
}

// read reads a workspace file through the root, refusing anything but a
// regular file of bounded size.
func (l *loader) read(name string) ([]byte, error) {
	l.deps = append(l.deps, name)
	// O_NONBLOCK keeps a FIFO planted under the name from blocking the
	// open; it does not change how regular files are read.
	f, err := l.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxIgnoreFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxIgnoreFileSize)
	}
	return data, nil
}

// localName cleans a workspace-relative file name and refuses names that
// leave the workspace; os.Root would refuse them too, but not as clearly.
func localName(name string) (string, error) {
	if name == "" {
		return "", errors.New("empty file name")
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", errors.New("file name contains NUL")
	}
	if path.IsAbs(name) {
		return "", errors.New("absolute file name; want a workspace-relative one")
	}
	c := path.Clean(name)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", errors.New("file name leaves the workspace")
	}
	return c, nil
}
