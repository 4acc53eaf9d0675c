package codedefs

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchDir writes 50 Go files of 40 functions (about 160 lines) each.
func benchDir(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("ctags"); err != nil {
		b.Skip("ctags not installed")
	}
	dir := b.TempDir()
	files := map[string]string{}
	for i := range DefaultMaxFiles {
		var src strings.Builder
		src.WriteString("package p\n\n")
		for j := range 40 {
			fmt.Fprintf(&src, "// F%d_%d does little.\nfunc F%d_%d(x int) int {\n\treturn x + %d\n}\n", i, j, i, j, j)
		}
		files[fmt.Sprintf("f%02d.go", i)] = src.String()
	}
	writeFiles(b, dir, files)
	return dir
}

// BenchmarkList is a whole call over 50 files.
func BenchmarkList(b *testing.B) {
	dir := benchDir(b)
	root := openRoot(b, dir)
	var l Lister
	for b.Loop() {
		if _, err := l.List(b.Context(), root, ".", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCtagsOnly is ctags alone over the same files in place, the floor
// List's reading, copying and formatting add to.
func BenchmarkCtagsOnly(b *testing.B) {
	dir := benchDir(b)
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for b.Loop() {
		if _, err := runCtags(b.Context(), "ctags", dir, names); err != nil {
			b.Fatal(err)
		}
	}
}
