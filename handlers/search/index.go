package search

import (
	"context"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultIndexMemory bounds the trigram summaries an Index keeps.
const DefaultIndexMemory = 32 << 20

// maxIndexTrees bounds how many search roots (the path argument of
// search_files) an Index keeps trees for.
const maxIndexTrees = 8

// IndexOptions configures an Index.
type IndexOptions struct {
	// MaxMemory bounds the bytes of file summaries kept
	// (DefaultIndexMemory when zero). Files past the bound are still
	// searched, only never skipped unread.
	MaxMemory int64
}

// Index makes repeated searches of one workspace cheaper than the first. It
// keeps the walked tree (directories, the files that pass the ignore rules,
// the ignore rules themselves) and, per file, a trigram summary of its
// content. Nothing is trusted without a check: every search stats each
// directory and file of the tree it walks, relists a directory whose stamp
// (inode, size, modification and change times) moved, re-reads ignore files
// whose stamp moved, and reads a file unless its stamp is unchanged and its
// summary rules the pattern out. Stamps younger than racyWindow prove
// nothing (file system clocks are coarse), so such entries are always read.
//
// So a repeated search costs one stat per file plus the reads of the files
// that may match, where a cold search opens, reads and matches every file
// and lists every directory. An Index is safe for concurrent use; a search
// that finds the index busy runs cold rather than waiting. Speed only:
// BenchmarkSearchGoTree and BenchmarkFirstSearch defend it
// (docs/benchmarks.md).
type Index struct {
	max   int64
	used  atomic.Int64 // summary bytes held
	reads atomic.Int64 // files read, for tests
	// racy is racyWindow; tests shorten it, as files they write are new.
	racy time.Duration

	mu    sync.Mutex
	trees map[string]*indexTree
}

// NewIndex returns an empty index.
func NewIndex(opts IndexOptions) *Index {
	if opts.MaxMemory <= 0 {
		opts.MaxMemory = DefaultIndexMemory
	}
	return &Index{max: opts.MaxMemory, racy: racyWindow, trees: map[string]*indexTree{}}
}

// racyWindow is how recent a stamp must be to prove nothing: a rewrite of
// the same size within the clock's granularity keeps the stamp.
const racyWindow = 2 * time.Second

// indexTree is the cached walk of one search root. parentIgn is the ignore
// state of the root's ancestors, reused while their ignore files keep their
// stamps, so that unchanged directories keep their state's identity.
type indexTree struct {
	top       *idxDir
	parentIgn *ignoreState
	parentFP  string
	// all keeps every entry, ignored and hidden ones too, for searches
	// whose glob overrides the ignore rules; such a search applies them
	// itself (walkConfig.skips) from each directory's ignore state.
	all bool
}

// idxDir is a directory of the tree as last listed.
type idxDir struct {
	name, rel string
	stamp     stamp
	listedAt  time.Time
	// ign is the state inside the directory, derived from parentIgn (the
	// parent's state when this one was listed) and ignFiles.
	ign, parentIgn *ignoreState
	ignFiles       []namedStamp
	files          []idxFile // exactly sized
	names          string    // the files' names, in order
	dirs           []*idxDir
	listed         bool
}

// idxFile is a file that passed the ignore rules when its directory was
// listed. A summary is built the second time a file is read with the same
// stamp, so files under active edit and one-off searches cost nothing.
//
// The index of a large tree is mostly these entries, so they are kept
// small (48 bytes, held by value in their directory, no pointer but the
// summary's) and few (one allocation per directory): the smaller the heap
// the first search leaves, the lower the peak the collector allows it.
// The stamp's fields are inlined and the name is a piece of its
// directory's names string, from off to the next file's off.
type idxFile struct {
	ino, size, mtime, ctime int64
	mode, off               uint32
	sum                     *summary
}

func (f *idxFile) stamp() stamp {
	return stamp{ino: f.ino, size: f.size, mtime: f.mtime, ctime: f.ctime, mode: f.mode}
}

func (f *idxFile) setStamp(s stamp) {
	f.ino, f.size, f.mtime, f.ctime, f.mode = s.ino, s.size, s.mtime, s.ctime, s.mode
}

// fileName is the name of d.files[i].
func (d *idxDir) fileName(i int) string {
	end := len(d.names)
	if i+1 < len(d.files) {
		end = int(d.files[i+1].off)
	}
	return d.names[d.files[i].off:end]
}

type namedStamp struct {
	name string
	st   stamp
}

// search serves one search from the index, running cold when another
// search holds it.
func (ix *Index) search(ctx context.Context, root *os.Root, start string, m *matcher, sel selector, c *collector) error {
	if !ix.mu.TryLock() {
		return coldSearch(ctx, root, start, m, sel, c)
	}
	defer ix.mu.Unlock()
	t, err := ix.tree(root, start, sel.override)
	if err != nil {
		return err
	}
	sd, err := openStart(root, start, sel.exclude)
	if err != nil {
		return err
	}
	return ix.refresh(ctx, sd, t, searchJob{m: m, c: c, sel: selection(start, sel, sd.judge(start, sel.exclude), c), all: t.all, ws: root})
}

// tree finds or makes the tree of start, dropping it when the ignore files
// of start's ancestors changed. A search whose glob overrides the ignore
// rules gets a tree of its own that keeps every entry (all), judged by
// each search's glob as it walks.
func (ix *Index) tree(root *os.Root, start string, all bool) (*indexTree, error) {
	fp, err := ancestorFingerprint(root, start)
	if err != nil {
		return nil, err
	}
	key := start
	if all {
		key = "\x00all:" + start
	}
	if t := ix.trees[key]; t != nil && t.parentFP == fp {
		return t, nil
	}
	if old := ix.trees[key]; old != nil {
		ix.forget(old.top)
	}
	pign := &ignoreState{}
	if start != "" {
		parent := path.Dir(start)
		if parent == "." {
			parent = ""
		}
		if pign, err = parentState(root, parent); err != nil {
			return nil, err
		}
	}
	if len(ix.trees) >= maxIndexTrees {
		for k, t := range ix.trees {
			ix.forget(t.top)
			delete(ix.trees, k)
			break
		}
	}
	t := &indexTree{top: &idxDir{rel: start}, parentIgn: pign, parentFP: fp, all: all}
	ix.trees[key] = t
	return t, nil
}

// ancestorFingerprint identifies the ignore files above start: their
// names and stamps.
func ancestorFingerprint(root *os.Root, start string) (string, error) {
	if start == "" {
		return "", nil
	}
	var fp []byte
	dir := path.Dir(start)
	for {
		d := ""
		if dir != "." {
			d = dir
		}
		for _, name := range ignoreFileNames {
			if st, err := root.Lstat(join(d, name)); err == nil {
				fp = append(fp, join(d, name)...)
				fp = append(fp, stampOf(st).key()...)
			}
		}
		if dir == "." {
			return string(fp), nil
		}
		dir = path.Dir(dir)
	}
}

// ignoreFileNames are the files whose presence or content changes which
// entries a directory's walk keeps.
var ignoreFileNames = []string{".git", ".gitignore", ".ignore", ".rgignore", ".git/info/exclude"}

// forget returns the summary memory of a subtree to the budget.
func (ix *Index) forget(d *idxDir) {
	if d == nil {
		return
	}
	for i := range d.files {
		ix.dropSummary(&d.files[i])
	}
	for _, sub := range d.dirs {
		ix.forget(sub)
	}
}

func (ix *Index) dropSummary(f *idxFile) {
	if f.sum != nil {
		ix.used.Add(-f.sum.bytes())
		f.sum = nil
	}
}

// keepSummary builds a summary of content for f if the budget allows.
func (ix *Index) keepSummary(f *idxFile, content []byte) {
	ix.dropSummary(f)
	need := int64(max(minSummaryBits, min(maxSummaryBits, len(content)))) / 8
	if ix.used.Add(need*2) > ix.max { // *2: headroom for the rounding in newSummary
		ix.used.Add(-need * 2)
		return
	}
	ix.used.Add(-need * 2)
	sum := newSummary(content)
	f.sum = &sum
	ix.used.Add(f.sum.bytes())
}
