package search

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func rgFiles(t testing.TB, dir string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(requireTool(t, "rg"), append([]string{"--files"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rg --files: %v", err)
	}
	files := strings.Fields(string(out))
	slices.Sort(files)
	return files
}

func TestWalkFilesMatchRipgrep(t *testing.T) {
	requireTool(t, "rg")
	dir := generatedTree(t)
	root := openRoot(t, dir)
	res, err := Walk(context.Background(), root, WalkOptions{Recursive: true, Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Entries {
		if !strings.HasSuffix(e, "/") {
			got = append(got, e)
		}
	}
	slices.Sort(got)
	// Walk shows hidden files but not the inside of hidden directories.
	want := rgFiles(t, dir, "--hidden", "-g", "!**/.*/**")
	diffSets(t, "files", got, want)
}

func TestWalkListing(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"b.txt": "", "a/z.txt": "", "a/y/deep.txt": "", "c/x.txt": "",
		"node_modules/m/i.js": "", ".cfg/s": "", ".env": "", "secret/k": "",
		"target/dependency/d.jar": "",
	})
	root := openRoot(t, dir)
	hide := func(rel string, _ bool) bool { return rel == "secret" }
	t.Run("breadth first", func(t *testing.T) {
		res, err := Walk(context.Background(), root, WalkOptions{Recursive: true, Exclude: hide})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{".cfg/", ".env", "a/", "b.txt", "c/", "node_modules/", "target/",
			"a/y/", "a/z.txt", "c/x.txt", "target/dependency/", "a/y/deep.txt"}
		if !slices.Equal(res.Entries, want) {
			t.Errorf("Entries = %q\nwant %q", res.Entries, want)
		}
		if res.Truncated || res.Excluded != 1 {
			t.Errorf("Truncated, Excluded = %v, %d; want false, 1", res.Truncated, res.Excluded)
		}
	})
	t.Run("skipped directories left out", func(t *testing.T) {
		res, err := Walk(context.Background(), root, WalkOptions{Recursive: true, Exclude: hide, OmitSkippedDirs: true})
		if err != nil {
			t.Fatal(err)
		}
		// As Cline's recursive glob: hidden directories and dependency
		// directories are left out whole, hidden files shown.
		want := []string{".env", "a/", "b.txt", "c/", "target/",
			"a/y/", "a/z.txt", "c/x.txt", "a/y/deep.txt"}
		if !slices.Equal(res.Entries, want) {
			t.Errorf("Entries = %q\nwant %q", res.Entries, want)
		}
	})
	t.Run("limit", func(t *testing.T) {
		res, err := Walk(context.Background(), root, WalkOptions{Recursive: true, Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Entries) != 4 || !res.Truncated {
			t.Errorf("got %q truncated=%v, want 4 entries, truncated", res.Entries, res.Truncated)
		}
	})
	t.Run("one level", func(t *testing.T) {
		res, err := Walk(context.Background(), root, WalkOptions{Path: "a"})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"a/y/", "a/z.txt"}; !slices.Equal(res.Entries, want) {
			t.Errorf("Entries = %q, want %q", res.Entries, want)
		}
	})
	t.Run("hidden directory listed", func(t *testing.T) {
		res, err := Walk(context.Background(), root, WalkOptions{Path: ".cfg", Recursive: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{".cfg/s"}; !slices.Equal(res.Entries, want) {
			t.Errorf("Entries = %q, want %q", res.Entries, want)
		}
	})
	t.Run("one level shows dependency and hidden directories", func(t *testing.T) {
		res, err := Walk(context.Background(), root, WalkOptions{NoIgnoreFiles: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(res.Entries, ".cfg/") || !slices.Contains(res.Entries, "node_modules/") {
			t.Errorf("Entries = %q, want .cfg/ and node_modules/ among them", res.Entries)
		}
	})
	t.Run("escape refused", func(t *testing.T) {
		if _, err := Walk(context.Background(), root, WalkOptions{Path: "../x"}); err == nil {
			t.Error("Walk(../x) succeeded, want an error")
		}
	})
}

// TestWalkShowsDirOnlyExclusionOpen: with ShowExcluded, entries are
// judged by name as Cline's formatFilesList judges them, so a directory a
// rule for directories only covers is shown open and entered, its
// entries locked; a directory a rule names by name is locked and not
// entered.
func TestWalkShowsDirOnlyExclusionOpen(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"private/k.txt": "", "named/n.txt": "", "ok.txt": ""})
	root := openRoot(t, dir)
	// "private/" covers the directory (as a directory) and what is below
	// it; "named" covers the path whatever it is.
	exclude := func(rel string, isDir bool) bool {
		return rel == "private" && isDir || strings.HasPrefix(rel, "private/") || rel == "named" || strings.HasPrefix(rel, "named/")
	}
	res, err := Walk(context.Background(), root, WalkOptions{Recursive: true, Exclude: exclude, ShowExcluded: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"named/", "ok.txt", "private/", "private/k.txt"}; !slices.Equal(res.Entries, want) {
		t.Errorf("Entries = %q, want %q", res.Entries, want)
	}
	for e, want := range map[string]bool{"named/": true, "private/": false, "private/k.txt": true, "ok.txt": false} {
		if res.Locked[e] != want {
			t.Errorf("Locked[%s] = %v, want %v", e, res.Locked[e], want)
		}
	}
	res, err = Walk(context.Background(), root, WalkOptions{Path: "private", Exclude: exclude, ShowExcluded: true})
	if err != nil {
		t.Fatalf("Walk of private: %v (a rule for directories only leaves it open)", err)
	}
	if want := []string{"private/k.txt"}; !slices.Equal(res.Entries, want) || !res.Locked["private/k.txt"] {
		t.Errorf("Walk of private = %q locked %v, want private/k.txt locked", res.Entries, res.Locked)
	}
}
