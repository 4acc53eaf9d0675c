package search

import (
	"context"
	"github.com/toolgate/toolgate/internal/procs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// searchJob is what one indexed search needs besides the tree.
type searchJob struct {
	m   *matcher
	c   *collector
	sel walkConfig
	// all says the tree keeps every entry, so the search applies the
	// ignore rules (or its overriding glob) as it walks.
	all bool
	// ws is the workspace, through which ignore files are read.
	ws *os.Root
}

// idxTask is a directory of the tree to check and search, with its open
// handle and the ignore state its parent has now.
type idxTask struct {
	d    *idxDir
	h    dirHandle
	pign *ignoreState
}

// refresh walks the cached tree from top (an open handle on its directory)
// with one worker per CPU, bringing every visited directory up to date and
// searching its files.
func (ix *Index) refresh(ctx context.Context, top *startDir, t *indexTree, job searchJob) error {
	h, err := topHandle(top)
	if err != nil {
		t.top.listed = false // a link swapped in for the start: relist next time
		if err == errNotAt {
			return nil
		}
		return err
	}
	q := newWorkQueue(ctx, idxTask{d: t.top, h: h, pign: t.parentIgn})
	var wg sync.WaitGroup
	defer procs.Hold().Done() // the workers below run side by side
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			scratch := getReadBuffer()
			defer putReadBuffer(scratch)
			for {
				it, ok := q.pop()
				if !ok {
					return
				}
				q.push(ix.visitDir(ctx, it, job, scratch)...)
				it.h.close()
				q.done()
			}
		})
	}
	wg.Wait()
	for _, it := range q.drain() {
		it.h.close()
	}
	return ctx.Err()
}

// visitDir relists the directory if its stamp, its parent's ignore state or
// one of its ignore files changed, searches its files and returns its
// subdirectories, first name last (the queue is a stack).
func (ix *Index) visitDir(ctx context.Context, it idxTask, job searchJob, scratch *[]byte) []idxTask {
	d := it.d
	st, err := it.h.stat()
	if err != nil {
		d.listed = false
		return nil
	}
	now := time.Now()
	if !d.listed || st != d.stamp || d.parentIgn != it.pign || st.racy(d.listedAt, ix.racy) || ix.ignoreFilesMoved(job.ws, d) {
		ix.relist(job.ws, it.h, d, it.pign, st, now, job.all)
	}
	listed(d.rel)
	for i := range d.files {
		f := &d.files[i]
		if ctx.Err() != nil {
			return nil
		}
		name := d.fileName(i)
		rel := join(d.rel, name)
		if job.all && job.sel.skips(d.ign, rel, name, false) || job.sel.prune(rel) || !job.sel.keepFile(rel) {
			continue
		}
		ix.visitFile(it.h, d, f, name, rel, job, scratch, now)
	}
	var tasks []idxTask
	for _, sub := range d.dirs {
		if job.all && job.sel.skips(d.ign, sub.rel, sub.name, true) || job.sel.prune(sub.rel) || !job.sel.keepDir(sub.rel) {
			continue
		}
		h, err := it.h.child(sub.name)
		if err != nil {
			// Replaced (a link swapped in fails to open) or removed:
			// relist next time.
			d.listed = false
			continue
		}
		tasks = append(tasks, idxTask{d: sub, h: h, pign: d.ign})
	}
	slices.Reverse(tasks)
	return tasks
}

// visitFile searches one file unless its unchanged stamp and its summary
// prove it cannot match. The summary is built on the second read of an
// unchanged, settled file. h is its directory's handle. Only a file with
// a summary is stamped before it is opened; any other is stamped from its
// open handle, which a read needs anyway.
func (ix *Index) visitFile(h dirHandle, d *idxDir, f *idxFile, name, rel string, job searchJob, scratch *[]byte, now time.Time) {
	if f.sum != nil {
		fst, err := h.lstat(name)
		if err != nil || !fst.regular() {
			d.listed = false
			return
		}
		if fst == f.stamp() && !fst.racy(now, ix.racy) && !f.sum.mayMatch(job.m.lits) {
			return
		}
	}
	ix.reads.Add(1)
	fh, err := h.openFile(name)
	if err != nil {
		d.listed = false // removed, or no longer the file listed: relist next time
		return
	}
	defer fh.Close()
	fst := fh.st
	if !fst.regular() {
		d.listed = false
		return
	}
	known := fst == f.stamp() && !fst.racy(now, ix.racy)
	if !known {
		ix.dropSummary(f)
	}
	f.setStamp(fst)
	if fst.size+1 > chunkSize {
		ix.dropSummary(f) // large files are streamed, never summarised
		if lines, n, err := scanReader(fh, fst.size, job.m, scratch); err == nil && n > 0 {
			job.c.add(FileMatches{Path: rel, Lines: lines, Count: n})
		}
		return
	}
	buf, err := readWhole(fh, fst.size, scratch)
	if err != nil {
		return
	}
	if known && f.sum == nil {
		ix.keepSummary(f, buf[:rgCut(buf)])
	}
	if lines, n := scanWhole(buf, job.m); n > 0 {
		job.c.add(FileMatches{Path: rel, Lines: lines, Count: n})
	}
}

// ignoreFilesMoved reports an ignore file of d created, changed or removed
// since d was listed; ws is the workspace.
func (ix *Index) ignoreFilesMoved(ws *os.Root, d *idxDir) bool {
	for _, ns := range d.ignFiles {
		var st stamp
		if fi, err := ws.Lstat(join(d.rel, ns.name)); err == nil {
			st = stampOf(fi)
		}
		if st != ns.st || st.racy(d.listedAt, ix.racy) && st != (stamp{}) {
			return true
		}
	}
	return false
}

// relist reads d again (through h, its handle): its entries, its ignore
// files (through the workspace ws) and the entries that pass them (every
// entry, for a tree that keeps all). Files and subdirectories that stay
// keep their cached state.
func (ix *Index) relist(ws *os.Root, h dirHandle, d *idxDir, pign *ignoreState, st stamp, now time.Time, all bool) {
	entries, _ := h.list() // an unreadable directory is empty, as ripgrep skips it
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	d.ignFiles = d.ignFiles[:0]
	d.ign = pign.enter(d.rel, names, func(name string) []byte {
		ns := namedStamp{name: name}
		if fi, err := ws.Lstat(join(d.rel, name)); err == nil {
			ns.st = stampOf(fi)
		}
		d.ignFiles = append(d.ignFiles, ns)
		data, err := ws.ReadFile(join(d.rel, name))
		if err != nil {
			return nil
		}
		return data
	})
	oldFiles := make(map[string]*idxFile, len(d.files))
	for i := range d.files {
		oldFiles[d.fileName(i)] = &d.files[i]
	}
	oldDirs := make(map[string]*idxDir, len(d.dirs))
	for _, sub := range d.dirs {
		oldDirs[sub.name] = sub
	}
	var files []idxFile
	var fileNames []string
	dirs := d.dirs[:0:0]
	for _, e := range entries {
		name := e.Name()
		rel := join(d.rel, name)
		switch t := e.Type(); {
		case t.IsDir() && (all || !d.ign.skip(rel, name, true)):
			sub := oldDirs[name]
			if sub == nil {
				// Its own copy: name and rel would otherwise hold on to
				// the whole listing's string of names.
				rel := strings.Clone(rel)
				sub = &idxDir{name: rel[len(rel)-len(name):], rel: rel}
			}
			delete(oldDirs, name)
			dirs = append(dirs, sub)
		case t.IsRegular() && (all || !d.ign.skip(rel, name, false)):
			var f idxFile
			if old := oldFiles[name]; old != nil {
				f = *old
				old.sum = nil // moved to f
			}
			delete(oldFiles, name)
			files, fileNames = append(files, f), append(fileNames, name)
		}
	}
	for _, f := range oldFiles {
		ix.dropSummary(f)
	}
	for _, sub := range oldDirs {
		ix.forget(sub)
	}
	d.names, d.files = packFiles(files, fileNames)
	d.dirs = dirs
	d.parentIgn, d.stamp, d.listedAt, d.listed = pign, st, now, true
}

// packFiles copies files into a slice of their exact length, and their
// names, in order, into one string.
func packFiles(files []idxFile, names []string) (string, []idxFile) {
	if len(files) == 0 {
		return "", nil
	}
	n := 0
	for _, name := range names {
		n += len(name)
	}
	var b strings.Builder
	b.Grow(n)
	out := make([]idxFile, len(files))
	for i, f := range files {
		out[i] = f
		out[i].off = uint32(b.Len())
		b.WriteString(names[i])
	}
	return b.String(), out
}
