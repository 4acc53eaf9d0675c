package search

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStampOfInfo: the portable stamp (systems other than Linux, and a
// FileInfo without Linux's stat) tells a regular file from a directory
// and moves when the size or the modification time does.
func TestStampOfInfo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	stat := func(p string) stamp {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return stampOfInfo(fi)
	}
	file := stat(path)
	if !file.regular() {
		t.Errorf("a regular file's stamp %+v is not regular", file)
	}
	if d := stat(dir); d.regular() {
		t.Errorf("a directory's stamp %+v is regular", d)
	}
	if err := os.WriteFile(path, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	if stat(path) == file {
		t.Error("the stamp did not move with the size")
	}
	file = stat(path)
	later := time.Unix(0, file.mtime).Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if stat(path) == file {
		t.Error("the stamp did not move with the modification time")
	}
}
