package codedefs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Defaults used where a Lister field is zero.
const (
	// DefaultTimeout bounds one List call, ctags included.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxFiles is Cline's cap on the files parsed per directory.
	DefaultMaxFiles = 50
	// DefaultMaxFileBytes skips generated or minified files, whose
	// definitions are noise and whose lines are huge.
	DefaultMaxFileBytes = 1 << 20
)

// NoDefinitions is the whole result when no file has a definition.
const NoDefinitions = "No source code definitions found."

// Lister lists code definitions. The zero value is ready to use; a Lister is
// safe for concurrent use as long as its fields are not changed.
type Lister struct {
	// Ctags is the ctags binary: a name looked up in PATH, or a path.
	// Empty means "ctags".
	Ctags string
	// Timeout bounds one call; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxFiles caps the source files parsed per call; zero means DefaultMaxFiles.
	MaxFiles int
	// MaxFileBytes skips larger files (with a note); zero means DefaultMaxFileBytes.
	MaxFileBytes int64
}

// List is Lister.List with the default settings.
func List(ctx context.Context, root *os.Root, dir string, exclude func(rel string, isDir bool) bool) (string, error) {
	var l Lister
	return l.List(ctx, root, dir, exclude)
}

// List returns the definitions of the source files at the top level of dir,
// a directory relative to root, formatted as the package doc shows, or
// NoDefinitions. Subdirectories are not descended. exclude, when not nil,
// is called with each candidate file's slash-separated path relative to root
// (for .clineignore rules); excluded files are left out silently, as if they
// did not exist. A dir that opened somewhere else than its name says (a
// link swapped in after the caller judged the name) is judged where it
// really is, and refused with a *search.ExcludedError when exclude rejects
// it. Notes on files that were capped, too large or unreadable follow the
// definitions.
func (l *Lister) List(ctx context.Context, root *os.Root, dir string, exclude func(rel string, isDir bool) bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, orDefault(l.Timeout, DefaultTimeout))
	defer cancel()
	srcs, notes, err := l.readSources(root, dir, exclude)
	if err != nil {
		return "", err
	}
	var body string
	if len(srcs) > 0 {
		defs, err := l.definitions(ctx, srcs)
		if err != nil {
			return "", err
		}
		body = render(srcs, defs)
	}
	return withNotes(body, notes), nil
}

// definitions runs ctags over private copies of srcs and returns, per index
// into srcs, the 1-based lines on which definitions start.
func (l *Lister) definitions(ctx context.Context, srcs []source) (map[int][]int, error) {
	tmp, err := os.MkdirTemp("", "codedefs-")
	if err != nil {
		return nil, fmt.Errorf("list_code_definition_names: %w", err)
	}
	defer os.RemoveAll(tmp)
	// Copies get generated names: only the extension of a workspace file
	// name reaches ctags' argument list, never the name itself.
	index := make(map[string]int, len(srcs))
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = fmt.Sprintf("f%03d%s", i, s.ext)
		index[names[i]] = i
		if err := os.WriteFile(filepath.Join(tmp, names[i]), s.data, 0o600); err != nil {
			return nil, fmt.Errorf("list_code_definition_names: %w", err)
		}
	}
	tags, err := runCtags(ctx, orDefault(l.Ctags, "ctags"), tmp, names)
	if err != nil {
		return nil, err
	}
	defs := make(map[int][]int)
	for _, t := range tags {
		i, ok := index[filepath.Base(t.Path)]
		if !ok || t.Line > len(srcs[i].lines) {
			continue
		}
		if isDefinition(t.Language, t.Kind, srcs[i].lines[t.Line-1]) {
			defs[i] = append(defs[i], t.Line)
		}
	}
	for i := range defs {
		slices.Sort(defs[i])
		defs[i] = slices.Compact(defs[i])
	}
	return defs, nil
}

// withNotes appends notes to the formatted definitions.
func withNotes(body string, notes []string) string {
	if body == "" {
		body = NoDefinitions
		if len(notes) > 0 {
			body += "\n\n"
		}
	}
	return body + strings.Join(notes, "\n")
}

// orDefault returns v, or def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
