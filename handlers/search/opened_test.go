package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestSwappedEntriesStayExcluded swaps links in for a file and a directory
// after the walk listed them and before it opens them (afterListing makes
// that moment deterministic). The links lead into an excluded directory of
// the same directory; every walk must judge what it opened, so the
// excluded file is neither read nor listed.
func TestSwappedEntriesStayExcluded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handles are named on Linux only")
	}
	exclude := func(rel string, _ bool) bool { return rel == "pub/private" || strings.HasPrefix(rel, "pub/private/") }
	setup := func(t *testing.T) (*os.Root, func()) {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{
			"pub/a.txt":              "hello\n",
			"pub/sub/b.txt":          "hello\n",
			"pub/private/secret.txt": "hello s3cret\n",
		})
		var once sync.Once
		swap := func() {
			once.Do(func() {
				for name, target := range map[string]string{"a.txt": "private/secret.txt", "sub": "private"} {
					p := filepath.Join(dir, "pub", name)
					if err := os.RemoveAll(p); err != nil {
						t.Error(err)
					}
					if err := os.Symlink(target, p); err != nil {
						t.Error(err)
					}
				}
			})
		}
		return openRoot(t, dir), swap
	}
	hook := func(t *testing.T, swap func()) {
		afterListing = func(rel string) {
			if rel == "pub" {
				swap()
			}
		}
		t.Cleanup(func() { afterListing = nil })
	}
	t.Run("search", func(t *testing.T) {
		root, swap := setup(t)
		hook(t, swap)
		res := mustSearch(t, root, Options{Regex: "hello", Exclude: exclude})
		for _, f := range res.Files {
			for _, l := range f.Lines {
				if strings.Contains(l.Text, "s3cret") {
					t.Errorf("%s showed the excluded file: %q", f.Path, l.Text)
				}
			}
		}
	})
	t.Run("indexed search", func(t *testing.T) {
		root, swap := setup(t)
		ix := NewIndex(IndexOptions{})
		mustSearch(t, root, Options{Regex: "hello", Exclude: exclude, Index: ix}) // lists and caches the tree
		hook(t, swap)
		res := mustSearch(t, root, Options{Regex: "hello", Exclude: exclude, Index: ix})
		for _, f := range res.Files {
			for _, l := range f.Lines {
				if strings.Contains(l.Text, "s3cret") {
					t.Errorf("%s showed the excluded file: %q", f.Path, l.Text)
				}
			}
		}
	})
	t.Run("recursive listing", func(t *testing.T) {
		root, swap := setup(t)
		hook(t, swap)
		res, err := Walk(context.Background(), root, WalkOptions{Recursive: true, Exclude: exclude, Limit: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Entries {
			if strings.Contains(e, "secret") {
				t.Errorf("listing %q shows the excluded file as %s", res.Entries, e)
			}
		}
	})
}

// TestStartJudgedWhereItIs: a start directory that is a link into an
// excluded directory is refused, and a link to a directory that is not
// excluded is walked with its entries judged where they really are.
func TestStartJudgedWhereItIs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handles are named on Linux only")
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"private/secret.txt": "hello\n", "src/keys/k.txt": "hello\n", "src/ok.txt": "hello\n"})
	for name, target := range map[string]string{"docs": "private", "alias": "src"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	root := openRoot(t, dir)
	exclude := func(rel string, _ bool) bool { return rel == "private" || rel == "src/keys" }
	var xe *ExcludedError
	if _, err := Search(context.Background(), root, Options{Regex: "hello", Path: "docs", Exclude: exclude}); !asExcluded(err, &xe) || xe.Real != "private" {
		t.Errorf("Search of a link to an excluded directory: err = %v, want ExcludedError for private", err)
	}
	if _, err := Walk(context.Background(), root, WalkOptions{Path: "docs", Exclude: exclude}); !asExcluded(err, &xe) {
		t.Errorf("Walk of a link to an excluded directory: err = %v, want ExcludedError", err)
	}
	if _, err := Files(context.Background(), root, FilesOptions{Path: "docs", Exclude: exclude}); !asExcluded(err, &xe) {
		t.Errorf("Files of a link to an excluded directory: err = %v, want ExcludedError", err)
	}
	res := mustSearch(t, root, Options{Regex: "hello", Path: "alias", Exclude: exclude})
	if len(res.Files) != 1 || res.Files[0].Path != "alias/ok.txt" || res.ExcludedDirs != 1 {
		t.Errorf("Search of alias = %+v, want alias/ok.txt only (alias/keys is src/keys, excluded)", res)
	}
}

func asExcluded(err error, xe **ExcludedError) bool {
	e, ok := err.(*ExcludedError)
	*xe = e
	return ok
}
