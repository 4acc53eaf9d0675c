package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// editPathsWalked is the list a command's sandbox made read-only before
// the answer was kept: fs.WalkDir from each denial's root, a directory
// denied as a whole listed once and not entered, then the other names of
// the denied files. The kept answer is held to it.
func editPathsWalked(s *linkSetup) []string {
	m := editDenials(s.denials)
	var out []string
	seen := map[string]bool{}
	roots := denialRoots(s.denials)
	for _, root := range roots {
		_ = fs.WalkDir(s.ws.Root.FS(), root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fs.SkipAll
			}
			_, hit := m.Match(p, d.IsDir())
			whole := false
			if d.IsDir() && !hit {
				_, whole = m.Match(p+"/"+newEntryProbe, false)
			}
			if (hit || whole) && p != "." && !seen[p] {
				seen[p] = true
				out = append(out, p)
				if d.IsDir() {
					return fs.SkipDir
				}
			}
			return nil
		})
	}
	out = append(out, editDeniedLinks(s.ws, m, roots)...)
	slices.Sort(out)
	return out
}

// editPathsCall asks the cache for the paths a command's sandbox makes
// read-only, relative to the workspace and sorted, and checks them
// against the walk.
func (s *linkSetup) editPathsCall() []string {
	s.t.Helper()
	var got []string
	for _, p := range s.lc.EditDeniedPaths(s.ws, s.denials) {
		rel, err := filepath.Rel(s.dir, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			s.t.Fatalf("%s is outside the workspace", p)
		}
		got = append(got, filepath.ToSlash(rel))
	}
	slices.Sort(got)
	if want := editPathsWalked(s); !slices.Equal(got, want) {
		s.t.Fatalf("kept answer lists %v, the walk %v", got, want)
	}
	return got
}

// TestEditDeniedPathsKept: the read-only list of a command's sandbox is
// walked for once while nothing changes, and an entry the rules deny made
// between commands (a new file, a hard link, a directory renamed into
// place) is in the next list.
func TestEditDeniedPathsKept(t *testing.T) {
	s := newLinkSetup(t, "*.pem", "certs/a.pem", "src/main.go", "src/deep/b.pem")
	for range 4 {
		wantHidden(t, s.editPathsCall(), "certs/a.pem", "src/deep/b.pem")
	}
	if s.lc.editPaths.walks != 1 {
		t.Fatalf("%d walks for 4 commands with nothing changed, want 1", s.lc.editPaths.walks)
	}
	if err := os.WriteFile(s.path("src/c.pem"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantHidden(t, s.editPathsCall(), "certs/a.pem", "src/c.pem", "src/deep/b.pem")
	s.age()
	s.link("src/main.go", "src/deep/d.pem")
	wantHidden(t, s.editPathsCall(), "certs/a.pem", "src/c.pem", "src/deep/b.pem", "src/deep/d.pem", "src/main.go")
}

// TestEditDeniedPathsWholeDirectory: a directory whose new entries the
// rules deny is listed once, nothing below it, and a file made in it
// later changes nothing; one renamed into the workspace is listed.
func TestEditDeniedPathsWholeDirectory(t *testing.T) {
	s := newLinkSetup(t, "/locked/**", "locked/a", "locked/sub/b", "other/c")
	wantHidden(t, s.editPathsCall(), "locked")
	if err := os.WriteFile(s.path("locked/sub/new"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantHidden(t, s.editPathsCall(), "locked")
	s.rename("locked", "moved")
	wantHidden(t, s.editPathsCall())
	s.age()
	s.rename("moved", "locked")
	wantHidden(t, s.editPathsCall(), "locked")
}
