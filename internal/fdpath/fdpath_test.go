package fdpath

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

func TestResolveFollowsLinks(t *testing.T) {
	dir := realTempDir(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "real"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "real", "f.txt"), []byte("x"), 0o644))
	must(os.Symlink("real", filepath.Join(dir, "alias")))
	must(os.Symlink("f.txt", filepath.Join(dir, "real", "link.txt")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	root, err := os.OpenRoot(dir)
	must(err)
	defer root.Close()

	for name, want := range map[string]string{
		"real/f.txt":     "real/f.txt",
		"alias/f.txt":    "real/f.txt",
		"alias/link.txt": "real/f.txt",
		"alias":          "real",
		"fifo":           "fifo", // opened without blocking
	} {
		got, err := Resolve(root, name)
		if err != nil || got != filepath.Join(dir, want) {
			t.Errorf("Resolve(%q) = %q, %v; want %q", name, got, err, filepath.Join(dir, want))
		}
	}
	if _, err := Resolve(root, "missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Resolve(missing) error = %v, want not exist", err)
	}

	f, err := root.Open("alias/link.txt")
	must(err)
	defer f.Close()
	must(os.Rename(filepath.Join(dir, "real"), filepath.Join(dir, "moved")))
	if got, err := Of(f); err != nil || got != filepath.Join(dir, "moved", "f.txt") {
		t.Errorf("Of after a rename = %q, %v; want the file where it is now", got, err)
	}
}

// TestRootPathIsWhereTheRootReallyIs: a root opened through a link is
// reported at its target.
func TestRootPathIsWhereTheRootReallyIs(t *testing.T) {
	dir := realTempDir(t)
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(filepath.Join(dir, "alias"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if got := RootPath(root); got != filepath.Join(dir, "real") {
		t.Errorf("RootPath = %q, want %q", got, filepath.Join(dir, "real"))
	}
}

// TestOfNamesARemovedFileWhereItWas: a file or directory removed while
// open is named at its old path, without the " (deleted)" the kernel adds
// to the link; a file whose name really ends so keeps it.
func TestOfNamesARemovedFileWhereItWas(t *testing.T) {
	dir := realTempDir(t)
	for _, name := range []string{"gone.txt", "named (deleted)"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if got, err := Of(f); err != nil || got != p {
			t.Errorf("Of(%s) while it exists = %q, %v", name, got, err)
		}
		if name == "gone.txt" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := Of(f); err != nil || got != p {
			t.Errorf("Of(%s) = %q, %v; want %q", name, got, err, p)
		}
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(sub)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	if got, err := Of(d); err != nil || got != sub {
		t.Errorf("Of(removed directory) = %q, %v; want %q", got, err, sub)
	}
}

// realTempDir is a fresh directory by its real path (the temporary
// directory may sit behind a link), as the kernel names files in it; the
// test is skipped off Linux.
func realTempDir(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
