package search

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// FoundFile is one file a listing selected.
type FoundFile struct {
	Path    string // workspace-relative, slash-separated
	ModTime time.Time
	Size    int64
}

// FilesOptions describes a listing of the files a search would read.
type FilesOptions struct {
	// Path is the workspace-relative directory to list ("" or "." is the root).
	Path string
	// FilePatterns are --glob style patterns, as Options.FilePattern; a
	// file must match every one.
	FilePatterns []string
	// Keep, when set, further selects files by workspace-relative path.
	Keep func(rel string) bool
	// Exclude reports paths the caller hides (.clineignore), as in Options.
	Exclude func(rel string, isDir bool) bool
	// All lists ignored and hidden files too, everything but .git
	// (ripgrep --files --no-ignore --hidden); Exclude still applies.
	All bool
}

// FilesResult is a listing in path order.
type FilesResult struct {
	Files []FoundFile
	// Excluded counts the entries Exclude left out.
	Excluded int
}

// Files lists the files a search of opts.Path would read, chosen as
// ripgrep chooses them (ignore files, hidden entries skipped), with their
// modification times: the selection Glob and Grep share with search_files.
func Files(ctx context.Context, root *os.Root, opts FilesOptions) (*FilesResult, error) {
	var globs []*fileGlob
	for _, p := range opts.FilePatterns {
		g, err := compileGlob(p)
		if err != nil {
			return nil, err
		}
		globs = append(globs, g)
	}
	start, err := cleanRel(opts.Path)
	if err != nil {
		return nil, err
	}
	sd, err := openStart(root, start, opts.Exclude)
	if err != nil {
		return nil, err
	}
	c := newCollector(Options{})
	var mu sync.Mutex
	var found []FoundFile
	cfg := selection(start, selector{}, sd.judge(start, opts.Exclude), c)
	cfg.prune = func(string) bool { return false }
	cfg.all = opts.All
	cfg.visit = func(_ int, d *dirNode, names []string) {
		for _, name := range names {
			rel := join(d.rel, name)
			if opts.Keep != nil && !opts.Keep(rel) || !matchAll(globs, rel) || ctx.Err() != nil {
				continue
			}
			st, err := d.h.lstat(name)
			if err != nil || !st.regular() {
				continue
			}
			mu.Lock()
			found = append(found, FoundFile{Path: rel, ModTime: time.Unix(0, st.mtime), Size: st.size})
			mu.Unlock()
		}
	}
	if err := parallelWalk(ctx, root, start, sd, cfg); err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b FoundFile) int { return comparePaths(a.Path, b.Path) })
	return &FilesResult{Files: found, Excluded: int(c.excludedFiles.Load() + c.excludedDirs.Load())}, nil
}

// CompilePathGlob compiles a glob matched against a whole path relative
// to some directory, as shells and Claude Code's Glob read it: "*" and
// "?" stay within one path component, "**/" crosses any number of them,
// {a,b} and [a-z] work; "*.json" matches only at the top.
func CompilePathGlob(pattern string) (func(rel string) bool, error) {
	expr, err := globRegexp(strings.TrimPrefix(pattern, "./"))
	if err != nil {
		return nil, &FilePatternError{Pattern: pattern, Err: err}
	}
	re, err := regexp.Compile("^" + expr + "$")
	if err != nil {
		return nil, &FilePatternError{Pattern: pattern, Err: err}
	}
	return re.MatchString, nil
}

func matchAll(globs []*fileGlob, rel string) bool {
	for _, g := range globs {
		if !g.match(rel) {
			return false
		}
	}
	return true
}
