package search

import (
	"context"
	"github.com/toolgate/toolgate/internal/procs"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// dirNode is one directory being walked. Its handle is opened from the
// parent's handle by name (see dirHandle). refs counts the directory's own
// read, its pending file batches and its subdirectories not yet opened;
// the handle closes at zero.
type dirNode struct {
	rel    string
	name   string
	parent *dirNode
	h      dirHandle
	opened bool // h is open
	ign    *ignoreState
	refs   atomic.Int32
}

func (d *dirNode) release() {
	if d.refs.Add(-1) == 0 && d.opened {
		d.h.close()
	}
}

// walkItem is a directory to read or a batch of files to visit.
type walkItem struct {
	dir   *dirNode
	files []string // nil: read dir; else names of files in dir
}

// filesPerItem lets two workers share a large directory's files.
const filesPerItem = 16

// walkConfig decides which entries a walk keeps.
type walkConfig struct {
	// keepFile filters files already past the ignore rules (file patterns,
	// .clineignore); false drops the file.
	keepFile func(rel string) bool
	// keepDir does the same for directories.
	keepDir func(rel string) bool
	// prune skips paths that can no longer change the answer.
	prune func(rel string) bool
	// visit handles a batch of kept files of one directory.
	visit func(worker int, d *dirNode, names []string)
	// all keeps ignored and hidden entries too, everything but .git
	// (ripgrep --no-ignore --hidden).
	all bool
	// override makes glob a ripgrep --glob override (see
	// Options.GlobOverride): what it matches is kept whatever the ignore
	// and hidden-entry rules say, a file it does not match is left out.
	override bool
	glob     *fileGlob
	// ws is the workspace, through which ignore files are read.
	ws *os.Root
}

// skips reports whether the walk leaves an entry out, given the ignore
// state of the directory holding it.
func (cfg *walkConfig) skips(ign *ignoreState, rel, name string, isDir bool) bool {
	switch {
	case cfg.all:
		return name == ".git"
	case cfg.override && cfg.glob.match(rel):
		// ripgrep's overrides come first: a whitelisted entry skips the
		// ignore files and the hidden rule ("*" whitelists every one).
		return false
	case cfg.override && !isDir:
		return true
	}
	return ign.skip(rel, name, isDir)
}

// parallelWalk walks start (workspace-relative, opened as sd) with one
// worker per CPU, and closes sd. Ignore files above start are honoured;
// start itself is walked even if ignored, as ripgrep does for a path it is
// given.
func parallelWalk(ctx context.Context, root *os.Root, start string, sd *startDir, cfg walkConfig) error {
	ign, err := parentState(root, start)
	if err != nil {
		sd.root.Close()
		return err
	}
	h, err := topHandle(sd)
	if err == errNotAt {
		return nil // a link swapped in for the start after it was judged
	}
	if err != nil {
		return err
	}
	cfg.ws = root
	top := &dirNode{rel: start, h: h, opened: true, ign: ign}
	top.refs.Store(1)
	q := newWorkQueue(ctx, walkItem{dir: top})
	var wg sync.WaitGroup
	defer procs.Hold().Done() // the workers below run side by side
	for w := range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				it, ok := q.pop()
				if !ok {
					return
				}
				if it.files == nil {
					q.push(readDir(it.dir, cfg)...)
				} else {
					cfg.visit(w, it.dir, it.files)
					it.dir.release()
				}
				q.done()
			}
		})
	}
	wg.Wait()
	for _, it := range q.drain() { // cancelled: close what was queued
		if it.files == nil && !it.dir.opened {
			it.dir.parent.release()
		} else {
			it.dir.release()
		}
	}
	return ctx.Err()
}

// readDir opens and lists one directory and returns its work, in reverse
// order so that the stack pops the first name first.
func readDir(d *dirNode, cfg walkConfig) []walkItem {
	defer d.release()
	if !d.opened {
		// A link swapped in for the directory after it was listed fails
		// to open.
		h, err := d.parent.h.child(d.name)
		d.parent.release()
		if err != nil {
			return nil
		}
		d.h, d.opened = h, true
	}
	entries, _ := d.h.list() // an unreadable directory is empty, as ripgrep skips it
	listed(d.rel)
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	d.ign = d.ign.enter(d.rel, names, rootReader(cfg.ws, d.rel))
	var items []walkItem
	var batch []string
	flush := func() {
		if len(batch) > 0 {
			d.refs.Add(1)
			items = append(items, walkItem{dir: d, files: batch})
			batch = nil
		}
	}
	for _, e := range entries {
		name := e.Name()
		rel := join(d.rel, name)
		switch t := e.Type(); {
		case t.IsDir():
			if cfg.skips(d.ign, rel, name, true) || cfg.prune(rel) || !cfg.keepDir(rel) {
				continue
			}
			flush()
			child := &dirNode{rel: rel, name: name, parent: d, ign: d.ign}
			child.refs.Store(1)
			d.refs.Add(1)
			items = append(items, walkItem{dir: child})
		case t.IsRegular():
			if cfg.skips(d.ign, rel, name, false) || cfg.prune(rel) || !cfg.keepFile(rel) {
				continue
			}
			if batch = append(batch, name); len(batch) == filesPerItem {
				flush()
			}
		}
	}
	flush()
	slices.Reverse(items)
	return items
}

// comparePaths orders slash-separated paths as a depth-first walk with
// sorted names visits them (ripgrep's --sort path): '/' sorts first.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return -1
		}
		if cb == '/' {
			return 1
		}
		if ca < cb {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}
