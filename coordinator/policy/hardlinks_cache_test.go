package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/ignore"
)

// linkSetup makes a workspace of the files given (contents irrelevant),
// the directories' times an hour old (older than tool.StampRacy, so an
// answer is kept), and rules hiding the denial pattern.
type linkSetup struct {
	t       *testing.T
	dir     string
	ws      *tool.Workspace
	base    *ignore.Matcher
	hidden  *ignore.Matcher
	denials []string
	lc      LinkCache
}

func newLinkSetup(t *testing.T, denial string, files ...string) *linkSetup {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		full := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	base := ignore.NewMatcher()
	s := &linkSetup{t: t, dir: dir, ws: ws, base: base, denials: []string{denial},
		hidden: base.WithRules(ignore.ParseRules("deny", "", []byte(denial+"\n")))}
	t.Cleanup(s.lc.Close)
	s.age()
	return s
}

// age sets every directory's modification time an hour back.
func (s *linkSetup) age() {
	s.t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

func (s *linkSetup) path(rel string) string { return filepath.Join(s.dir, filepath.FromSlash(rel)) }

func (s *linkSetup) link(from, to string) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(s.path(to)), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Link(s.path(from), s.path(to)); err != nil {
		s.t.Fatal(err)
	}
}

func (s *linkSetup) rename(from, to string) {
	s.t.Helper()
	if err := os.Rename(s.path(from), s.path(to)); err != nil {
		s.t.Fatal(err)
	}
}

// hiddenFiles lists the workspace's files m hides.
func (s *linkSetup) hiddenFiles(m *ignore.Matcher) []string {
	s.t.Helper()
	var out []string
	_ = filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(s.dir, p)
			if _, hit := m.Match(filepath.ToSlash(rel), false); hit {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// call asks the cache and checks its answer is the one a fresh walk
// gives; it returns the hidden files.
func (s *linkSetup) call() []string {
	s.t.Helper()
	got := s.hiddenFiles(s.lc.WithHardLinks(s.ws, s.base, s.hidden, s.denials))
	want := s.hiddenFiles(WithHardLinks(s.ws, s.base, s.hidden, s.denials))
	if !slices.Equal(got, want) {
		s.t.Fatalf("kept answer hides %v, a fresh walk %v", got, want)
	}
	return got
}

// kept calls twice and checks the second answer came without a walk.
func (s *linkSetup) kept() {
	s.t.Helper()
	s.call()
	walks := s.lc.read.walks
	s.call()
	if s.lc.read.walks != walks {
		s.t.Fatalf("walked again with nothing changed (%d walks, then %d)", walks, s.lc.read.walks)
	}
}

func wantHidden(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("hidden %v, want %v", got, want)
	}
}

// TestLinkCacheKept: while nothing changes, the answer is not walked
// for again, and it is the same matcher.
func TestLinkCacheKept(t *testing.T) {
	s := newLinkSetup(t, ".env", "a/.env", "a/b/x.txt", "c/y.txt")
	s.link("a/.env", "c/notes")
	s.age()
	first := s.lc.WithHardLinks(s.ws, s.base, s.hidden, s.denials)
	for range 3 {
		if m := s.lc.WithHardLinks(s.ws, s.base, s.hidden, s.denials); m != first {
			t.Fatal("a different answer with nothing changed")
		}
	}
	if s.lc.read.walks != 1 {
		t.Fatalf("%d walks for 4 calls with nothing changed, want 1", s.lc.read.walks)
	}
	wantHidden(t, s.hiddenFiles(first), "a/.env", "c/notes")
}

// TestLinkCacheLinkInRoot: a new name made inside the walked root.
func TestLinkCacheLinkInRoot(t *testing.T) {
	s := newLinkSetup(t, ".env", "a/.env", "a/b/x.txt")
	s.kept()
	s.link("a/.env", "a/b/notes")
	wantHidden(t, s.call(), "a/.env", "a/b/notes")
}

// TestLinkCacheLinkOutsideRoot: a new name made from a directory the
// walk did not read changes only the denied file's names count.
func TestLinkCacheLinkOutsideRoot(t *testing.T) {
	s := newLinkSetup(t, "/secret/**", "secret/key", "out/readme")
	s.kept()
	s.link("secret/key", "out/k")
	wantHidden(t, s.call(), "out/k", "secret/key")
}

// TestLinkCacheRenameOtherName: an other name renamed elsewhere in the
// workspace (the names count stays).
func TestLinkCacheRenameOtherName(t *testing.T) {
	s := newLinkSetup(t, "/secret/**", "secret/key", "out/readme", "far/z")
	s.link("secret/key", "out/k")
	s.age()
	s.kept()
	s.rename("out/k", "far/k2")
	wantHidden(t, s.call(), "far/k2", "secret/key")
}

// TestLinkCacheNewDenied: a new directory below the root holding a new
// denied file made as a link to a file not denied before (only the
// directory it was made in changed among those the walk read).
func TestLinkCacheNewDenied(t *testing.T) {
	s := newLinkSetup(t, ".env", "a/.env", "README")
	s.kept()
	if err := os.Mkdir(s.path("a/c"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.link("README", "a/c/.env")
	wantHidden(t, s.call(), "README", "a/.env", "a/c/.env")
}

// TestLinkCacheNewDeniedInRoot: the same in the root directory itself.
func TestLinkCacheNewDeniedInRoot(t *testing.T) {
	s := newLinkSetup(t, ".env", "a/.env", "README")
	s.kept()
	s.link("README", ".env")
	wantHidden(t, s.call(), ".env", "README", "a/.env")
}

// TestLinkCacheRootCreated: a root that was absent (Read(./.env) with no
// .env) made as a link to an existing file.
func TestLinkCacheRootCreated(t *testing.T) {
	s := newLinkSetup(t, "/.env", "README", "a/x")
	s.kept()
	s.link("README", ".env")
	wantHidden(t, s.call(), ".env", "README")
}

// TestLinkCacheDirRenamedIntoRoot: a directory holding a file with two
// names renamed into a denial's root.
func TestLinkCacheDirRenamedIntoRoot(t *testing.T) {
	s := newLinkSetup(t, "/secret/**", "secret/key", "other/f", "g/readme")
	s.link("other/f", "g/f2")
	s.age()
	s.kept()
	s.rename("other", "secret/other")
	wantHidden(t, s.call(), "g/f2", "secret/key", "secret/other/f")
}

// TestLinkCacheSymlinkedRoot: a root made a symbolic link to a directory
// holding a file with two names.
func TestLinkCacheSymlinkedRoot(t *testing.T) {
	s := newLinkSetup(t, "/secret/**", "real/k", "g/readme")
	s.link("real/k", "g/k2")
	s.age()
	s.kept()
	if err := os.Symlink("real", s.path("secret")); err != nil {
		t.Fatal(err)
	}
	got := s.call()
	if !slices.Contains(got, "g/k2") {
		t.Fatalf("hidden %v, want g/k2 among them", got)
	}
}

// TestLinkCacheUnreadableDir: a directory the walk could not read made
// readable shows what it holds (its mode change moves no time an entry
// change would).
func TestLinkCacheUnreadableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	s := newLinkSetup(t, ".env", "a/.env", "locked/.env", "b/x")
	s.link("locked/.env", "b/y")
	if err := os.Chmod(s.path("locked"), 0o300); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(s.path("locked"), 0o755) })
	s.age()
	s.call()
	if s.lc.read.watch != nil {
		t.Error("an answer whose walk met an unreadable directory was kept")
	}
	if err := os.Chmod(s.path("locked"), 0o755); err != nil {
		t.Fatal(err)
	}
	wantHidden(t, s.call(), "a/.env", "b/y", "locked/.env")
}

// TestLinkCacheRacyDirectory: an answer whose walk read a directory
// changed within tool.StampRacy is not kept.
func TestLinkCacheRacyDirectory(t *testing.T) {
	s := newLinkSetup(t, ".env", "a/.env", "b/x")
	if err := os.WriteFile(s.path("b/fresh"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.call()
	if s.lc.read.watch != nil {
		t.Fatal("an answer that read a directory changed just now was kept")
	}
	walks := s.lc.read.walks
	s.call()
	if s.lc.read.walks != walks+1 {
		t.Fatal("the racy answer was used")
	}
}

// TestLinkCacheTimePutBack: a denied file made with its directory's
// modification time put back is seen (the change time moved).
func TestLinkCacheTimePutBack(t *testing.T) {
	s := newLinkSetup(t, ".env", "a/.env", "b/README")
	s.kept()
	before, err := os.Stat(s.path("b"))
	if err != nil {
		t.Fatal(err)
	}
	s.link("b/README", "b/.env")
	if err := os.Chtimes(s.path("b"), before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	wantHidden(t, s.call(), "a/.env", "b/.env", "b/README")
}

// editCall asks the cache for the other names of the files the denial
// keeps from editing and checks its answer is the one a fresh walk
// gives.
func (s *linkSetup) editCall() []string {
	s.t.Helper()
	got := slices.Sorted(slices.Values(s.lc.EditDeniedLinks(s.ws, s.denials)))
	want := slices.Sorted(slices.Values(editDeniedLinks(s.ws, editDenials(s.denials), denialRoots(s.denials))))
	if !slices.Equal(got, want) {
		s.t.Fatalf("kept answer links %v, a fresh walk %v", got, want)
	}
	return got
}

// TestLinkCacheEditKept: the other names of edit-denied files are kept
// as the read denials' are: while nothing changes they are not walked for
// again.
func TestLinkCacheEditKept(t *testing.T) {
	s := newLinkSetup(t, "/locked/**", "locked/a", "out/readme")
	s.link("locked/a", "out/alias")
	s.age()
	for range 4 {
		wantHidden(t, s.editCall(), "out/alias")
	}
	if s.lc.edit.walks != 1 {
		t.Fatalf("%d walks for 4 calls with nothing changed, want 1", s.lc.edit.walks)
	}
}

// TestLinkCacheEditLinkMadeBetweenCalls: a hard link to an edit-denied
// file made after an answer was kept, from a directory the walk did not
// read, is in the next answer (the file's names count changed).
func TestLinkCacheEditLinkMadeBetweenCalls(t *testing.T) {
	s := newLinkSetup(t, "/locked/**", "locked/a", "out/readme")
	wantHidden(t, s.editCall())
	wantHidden(t, s.editCall())
	if s.lc.edit.walks != 1 {
		t.Fatalf("%d walks with nothing changed, want 1", s.lc.edit.walks)
	}
	s.link("locked/a", "out/alias")
	wantHidden(t, s.editCall(), "out/alias")
}

// TestLinkCacheReadAndEditApart: the read and the edit denials' answers
// are kept side by side: asking one does not walk the other again.
func TestLinkCacheReadAndEditApart(t *testing.T) {
	s := newLinkSetup(t, "/secret/**", "secret/key", "out/readme")
	s.link("secret/key", "out/k")
	s.age()
	for range 3 {
		wantHidden(t, s.call(), "out/k", "secret/key")
		wantHidden(t, s.editCall(), "out/k")
	}
	if s.lc.read.walks != 1 || s.lc.edit.walks != 1 {
		t.Fatalf("%d read and %d edit walks, want one each", s.lc.read.walks, s.lc.edit.walks)
	}
}
