package search

import (
	"context"
	"fmt"
	"github.com/toolgate/toolgate/internal/procs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Options describes one search_files call.
type Options struct {
	// Path is the workspace-relative directory to search; "" or "." is the
	// workspace root.
	Path string
	// Regex is the pattern, in Rust regex syntax.
	Regex string
	// FilePattern is a --glob style pattern selecting files ("*.go",
	// "src/**/*.ts"); empty selects every file.
	FilePattern string
	// Exclude reports a workspace-relative path the caller hides (its
	// .clineignore); such files are neither read nor shown, only counted.
	Exclude func(rel string, isDir bool) bool
	// MaxResults caps the results (DefaultMaxResults when zero).
	MaxResults int
	// OnFile, when set, receives each file's matches as soon as the file is
	// searched, in no particular order, for streaming partial output. Calls
	// never overlap.
	OnFile func(FileMatches)
	// Index, when set, serves repeated searches from its cache.
	Index *Index
	// GlobOverride selects files as ripgrep given --glob FilePattern (or
	// --glob '*' when FilePattern is empty) selects them: a glob overrides
	// every ignore rule, so a file it matches is searched even when
	// .gitignore or .ignore covers it or it is hidden, and a directory it
	// matches is entered (with '*', every one, .git included); a file it
	// does not match is left out. Without it, ripgrep's ignore and hidden
	// rules choose the files and FilePattern narrows them. Exclude applies
	// either way.
	GlobOverride bool
	// Withhold, when set, is asked about each file that matched before
	// its matches are kept; true leaves the file out, counted as
	// excluded. The caller judges there what the walk cannot see by name:
	// a hard link to a file Exclude hides.
	Withhold func(rel string) bool
}

// FileMatches is one file's matching lines with their context lines.
type FileMatches struct {
	Path  string // workspace-relative, slash-separated
	Lines []Line // in line order
	Count int    // matching lines among Lines
}

// Result is a finished search.
type Result struct {
	// Files are sorted by path (depth-first, names sorted) and hold at most
	// MaxResults matches in all.
	Files []FileMatches
	// Count is the number of matches in Files.
	Count int
	// Truncated says the search found MaxResults matches or more, as Cline
	// words it ("Showing first 300 of 300+ results").
	Truncated bool
	// ExcludedFiles and ExcludedDirs count entries left out by Exclude;
	// excluded directories are not entered.
	ExcludedFiles, ExcludedDirs int
	maxResults                  int
}

func (r *Result) max() int { return r.maxResults }

// Only keeps the matches of the file at rel alone (a search of one file
// made as a search of its directory).
func (r *Result) Only(rel string) {
	kept := r.Files[:0]
	r.Count = 0
	for _, f := range r.Files {
		if f.Path == rel {
			kept = append(kept, f)
			r.Count += f.Count
		}
	}
	r.Files = kept
	r.Truncated = r.Truncated && r.Count >= r.maxResults
}

// Search runs a search_files call against the workspace root.
func Search(ctx context.Context, root *os.Root, opts Options) (*Result, error) {
	m, err := newMatcher(opts.Regex)
	if err != nil {
		return nil, err
	}
	glob, err := compileGlob(opts.FilePattern)
	if err != nil {
		return nil, err
	}
	start, err := cleanRel(opts.Path)
	if err != nil {
		return nil, err
	}
	c := newCollector(opts)
	sel := selector{glob: glob, override: opts.GlobOverride, exclude: opts.Exclude}
	if opts.Index != nil {
		err = opts.Index.search(ctx, root, start, m, sel, c)
	} else {
		err = coldSearch(ctx, root, start, m, sel, c)
	}
	if err != nil {
		return nil, err
	}
	return c.result(), nil
}

// selector is how a search chooses its files: the file pattern, whether
// it overrides the ignore rules, and the caller's exclusions.
type selector struct {
	glob     *fileGlob
	override bool
	exclude  func(rel string, isDir bool) bool
}

// coldSearch walks start and reads every selected file.
func coldSearch(ctx context.Context, root *os.Root, start string, m *matcher, sel selector, c *collector) error {
	sd, err := openStart(root, start, sel.exclude)
	if err != nil {
		return err
	}
	// The workers read files side by side: every processor, sized after
	// the hold.
	defer procs.Hold().Done()
	scratch := make([]*[]byte, runtime.GOMAXPROCS(0))
	for w := range scratch {
		scratch[w] = getReadBuffer()
		defer putReadBuffer(scratch[w])
	}
	cfg := selection(start, sel, sd.judge(start, sel.exclude), c)
	cfg.visit = func(w int, d *dirNode, names []string) {
		for _, name := range names {
			rel := join(d.rel, name)
			if c.pruned(rel) || ctx.Err() != nil {
				continue
			}
			lines, n, err := scanFileIn(d.h, name, m, scratch[w])
			if err == nil && n > 0 {
				c.add(FileMatches{Path: rel, Lines: lines, Count: n})
			}
		}
	}
	return parallelWalk(ctx, root, start, sd, cfg)
}

// selection builds the walk filters shared by cold and indexed searches;
// exclude is sel's, adapted to where start really is.
func selection(start string, sel selector, exclude func(string, bool) bool, c *collector) walkConfig {
	glob := sel.glob
	return walkConfig{
		override: sel.override,
		glob:     glob,
		keepFile: func(rel string) bool {
			if !glob.match(rel) {
				return false
			}
			if exclude != nil && exclude(rel, false) {
				c.excludedFiles.Add(1)
				return false
			}
			return true
		},
		keepDir: func(rel string) bool {
			if exclude != nil && exclude(rel, true) {
				c.excludedDirs.Add(1)
				return false
			}
			return true
		},
		prune: c.pruned,
	}
}

// scanFileIn searches the file name of the directory h.
func scanFileIn(h dirHandle, name string, m *matcher, scratch *[]byte) ([]Line, int, error) {
	f, err := h.openFile(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if !f.st.regular() {
		return nil, 0, nil
	}
	return scanReader(f, f.st.size, m, scratch)
}

// cleanRel validates a workspace-relative directory.
func cleanRel(p string) (string, error) {
	p = strings.ReplaceAll(p, "\\", "/")
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("path %q: contains a NUL byte", p)
	}
	c := path.Clean(p)
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q: must be relative to the workspace and stay inside it", p)
	}
	if c == "." {
		return "", nil
	}
	return c, nil
}

// collector gathers file results from the workers. Once it holds
// MaxResults matches it knows the last path that can still appear in the
// answer, and pruned lets workers skip everything sorting after it.
type collector struct {
	mu            sync.Mutex
	files         []FileMatches
	total         int
	max           int
	onFile        func(FileMatches)
	cutoff        atomic.Pointer[string]
	excludedFiles atomic.Int64
	withhold      func(rel string) bool
	excludedDirs  atomic.Int64
}

func newCollector(opts Options) *collector {
	c := &collector{max: opts.MaxResults, onFile: opts.OnFile, withhold: opts.Withhold}
	if c.max <= 0 {
		c.max = DefaultMaxResults
	}
	return c
}

func (c *collector) pruned(rel string) bool {
	cut := c.cutoff.Load()
	return cut != nil && comparePaths(rel, *cut) > 0
}

func (c *collector) add(f FileMatches) {
	if c.withhold != nil && c.withhold(f.Path) {
		c.excludedFiles.Add(1)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cut := c.cutoff.Load(); cut != nil && comparePaths(f.Path, *cut) > 0 {
		return
	}
	if c.onFile != nil {
		c.onFile(f)
	}
	c.files = append(c.files, f)
	c.total += f.Count
	if c.total < c.max {
		return
	}
	c.sortFiles()
	sum := 0
	for i := range c.files {
		sum += c.files[i].Count
		if sum >= c.max {
			c.files, c.total = c.files[:i+1], sum
			p := c.files[i].Path
			c.cutoff.Store(&p)
			return
		}
	}
}

func (c *collector) sortFiles() {
	slices.SortFunc(c.files, func(a, b FileMatches) int { return comparePaths(a.Path, b.Path) })
}

// result sorts the files and cuts the answer after the last allowed match,
// keeping that match's after-context as ripgrep's output would.
func (c *collector) result() *Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sortFiles()
	r := &Result{
		maxResults:    c.max,
		Truncated:     c.total >= c.max,
		ExcludedFiles: int(c.excludedFiles.Load()),
		ExcludedDirs:  int(c.excludedDirs.Load()),
	}
	for _, f := range c.files {
		if r.Count+f.Count <= c.max {
			r.Files = append(r.Files, f)
			r.Count += f.Count
			continue
		}
		f.Lines, f.Count = cutLines(f.Lines, c.max-r.Count)
		r.Files = append(r.Files, f)
		r.Count += f.Count
		break
	}
	return r
}

// cutLines keeps the first n matches and the context lines up to the next.
func cutLines(lines []Line, n int) ([]Line, int) {
	seen := 0
	for i, l := range lines {
		if l.Match {
			if seen == n {
				return lines[:i], seen
			}
			seen++
		}
	}
	return lines, seen
}
