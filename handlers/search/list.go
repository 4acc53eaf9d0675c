package search

import (
	"context"
	"github.com/toolgate/toolgate/internal/procs"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
)

// DefaultListLimit is Cline's cap on list_files entries.
const DefaultListLimit = 200

// DefaultExcludedDirs are the directory names a listing never enters:
// dependency, build-output and cache directories (Cline's list). Hidden
// directories (a leading '.') are treated the same way. A one-level
// listing shows them; a recursive one shows them without entering them,
// or leaves them out whole (WalkOptions.OmitSkippedDirs, as Cline's does).
var DefaultExcludedDirs = []string{
	"node_modules", "__pycache__", "env", "venv", "target/dependency", "build/dependencies",
	"dist", "out", "bundle", "vendor", "tmp", "temp", "deps", "Pods",
}

// WalkOptions describes one list_files call.
type WalkOptions struct {
	// Path is the workspace-relative directory to list ("" or "." is the root).
	Path string
	// Recursive lists the whole tree breadth-first instead of one level.
	Recursive bool
	// Limit caps the entries (DefaultListLimit when zero, unlimited when < 0).
	Limit int
	// Exclude reports workspace-relative paths the caller hides
	// (.clineignore); they are left out and counted.
	Exclude func(rel string, isDir bool) bool
	// ShowExcluded keeps the entries Exclude reports in the listing,
	// named in WalkResult.Locked, as Cline's list_files shows them behind a
	// lock; a locked directory is never entered.
	ShowExcluded bool
	// NoIgnoreFiles applies no .gitignore, .ignore or .rgignore: Cline's
	// one-level listing shows every entry.
	NoIgnoreFiles bool

	// OmitSkippedDirs leaves the directories a recursive listing does
	// not enter (hidden ones, DefaultExcludedDirs) out of it whole, as
	// Cline's glob does (**/.*/**, **/node_modules/**), unless the listed
	// directory is itself hidden.
	OmitSkippedDirs bool

	// hiddenStart: the listed directory is itself hidden, so hidden
	// directories below it are listed and entered (Cline's
	// isTargetingHiddenDirectory).
	hiddenStart bool
}

// WalkResult is a listing: workspace-relative paths, directories with a
// trailing "/", shallow entries first and sorted by name within a directory.
type WalkResult struct {
	Entries []string
	// Truncated says the limit was reached, as Cline's list_files reports.
	Truncated bool
	// Excluded counts entries left out by Exclude.
	Excluded int
	// Locked holds the entries Exclude reported that ShowExcluded kept.
	Locked map[string]bool
}

// Walk lists a workspace directory for list_files with ripgrep's ignore
// rules (.gitignore in a repository, .ignore, .rgignore, .git/info/exclude).
// Like Cline, a one-level listing shows hidden entries and the
// DefaultExcludedDirs; a recursive one does not enter them (unless the
// listed directory is itself hidden) and, with OmitSkippedDirs, leaves
// them out. It never follows symbolic links.
func Walk(ctx context.Context, root *os.Root, opts WalkOptions) (*WalkResult, error) {
	start, err := cleanRel(opts.Path)
	if err != nil {
		return nil, err
	}
	sd, err := openStart(root, start, opts.Exclude)
	if err != nil {
		return nil, err
	}
	sd.root.Close() // each level is opened by name and checked against its real path
	opts.Exclude = sd.judge(start, opts.Exclude)
	ign, err := parentState(root, start)
	if err != nil {
		return nil, err
	}
	opts.hiddenStart = strings.HasPrefix(path.Base(dotIfEmpty(start)), ".") && start != ""
	limit := opts.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	res := &WalkResult{}
	level := []levelDir{{rel: start, real: sd.real, ign: ign}}
	for len(level) > 0 && ctx.Err() == nil {
		listed := listLevel(root, level, &opts)
		level = level[:0:0]
		for _, l := range listed {
			res.Excluded += l.excluded
			for _, e := range l.entries {
				if limit > 0 && len(res.Entries) >= limit {
					res.Truncated = true
					return res, nil
				}
				res.Entries = append(res.Entries, e.rel+e.slash())
				if e.locked {
					if res.Locked == nil {
						res.Locked = map[string]bool{}
					}
					res.Locked[e.rel+e.slash()] = true
				}
				if e.descend && opts.Recursive {
					level = append(level, levelDir{rel: e.rel, real: e.real, ign: l.ign})
				}
			}
		}
	}
	res.Truncated = limit > 0 && len(res.Entries) >= limit
	return res, ctx.Err()
}

type levelDir struct {
	rel  string
	real string // where the directory must really be; "" when unknown
	ign  *ignoreState
}

type listedEntry struct {
	rel     string
	real    string
	dir     bool
	descend bool
	locked  bool // excluded, shown anyway
}

func (e listedEntry) slash() string {
	if e.dir {
		return "/"
	}
	return ""
}

type listedDir struct {
	entries  []listedEntry
	ign      *ignoreState
	excluded int
}

// listLevel reads the directories of one breadth-first level in parallel,
// keeping their order.
func listLevel(root *os.Root, level []levelDir, opts *WalkOptions) []listedDir {
	out := make([]listedDir, len(level))
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	if len(level) > 1 { // one directory is read by one worker
		defer procs.Hold().Done()
	}
	for range min(runtime.GOMAXPROCS(0), len(level)) {
		wg.Go(func() {
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= len(level) {
					return
				}
				out[k] = listOne(root, level[k], opts)
			}
		})
	}
	wg.Wait()
	return out
}

func listOne(root *os.Root, d levelDir, opts *WalkOptions) listedDir {
	entries, err := listDirSorted(root, dotIfEmpty(d.rel), d.real)
	if err != nil && entries == nil {
		return listedDir{}
	}
	listed(d.rel)
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	ign := d.ign.enter(d.rel, names, rootReader(root, d.rel))
	ld := listedDir{ign: ign}
	for _, e := range entries {
		t := e.Type()
		if !t.IsDir() && !t.IsRegular() {
			continue // symlinks and special files
		}
		name, rel, isDir := e.Name(), join(d.rel, e.Name()), t.IsDir()
		if !opts.NoIgnoreFiles && ign.match(rel, isDir) == ignored {
			continue
		}
		// Shown entries are judged as Cline's formatFilesList judges them,
		// by name: a directory a rule for directories only covers is
		// shown open, and entered, its entries behind the lock.
		locked := opts.Exclude != nil && opts.Exclude(rel, isDir && !opts.ShowExcluded)
		if locked && !opts.ShowExcluded {
			ld.excluded++
			continue
		}
		hidden := strings.HasPrefix(name, ".")
		if isDir && opts.Recursive && opts.OmitSkippedDirs && (hidden && !opts.hiddenStart || defaultExcluded(rel, name)) {
			continue // Cline's recursive glob ignores **/.*/** and **/node_modules/** whole
		}
		descend := isDir && !locked && (!hidden || opts.hiddenStart) && !defaultExcluded(rel, name)
		ld.entries = append(ld.entries, listedEntry{rel: rel, real: childOf(d.real, name), dir: isDir, descend: descend, locked: locked})
	}
	return ld
}

// defaultExcluded matches DefaultExcludedDirs; two-part names such as
// "target/dependency" match the last two path components.
func defaultExcluded(rel, name string) bool {
	for _, d := range DefaultExcludedDirs {
		if d == name || (strings.Contains(d, "/") && (rel == d || strings.HasSuffix(rel, "/"+d))) {
			return true
		}
	}
	return false
}
