package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestWriteVerifiedSeesRealTarget writes through directory and file
// symlinks and checks verify is shown the real file, and that a refusal
// writes nothing.
func TestWriteVerifiedSeesRealTarget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the real path of a directory handle is read from /proc")
	}
	root, ws, _ := workspace(t)
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "private", "secret.txt"), "s3cret", 0o644)
	for _, link := range [][2]string{{"private", "alias"}, {"private/secret.txt", "f-link.txt"}} {
		if err := os.Symlink(link[0], filepath.Join(ws, link[1])); err != nil {
			t.Fatal(err)
		}
	}
	refuse := errors.New("refused")
	for name, want := range map[string]string{
		"alias/secret.txt": "private/secret.txt",
		"f-link.txt":       "private/secret.txt",
		"alias/new.txt":    "private/new.txt",
	} {
		var seen string
		err := WriteVerified(root, name, []byte("overwritten"), 0o644, func(p string) error { seen = p; return refuse })
		if !errors.Is(err, refuse) {
			t.Errorf("WriteVerified(%s) = %v, want the refusal", name, err)
		}
		if seen != filepath.Join(real, want) {
			t.Errorf("WriteVerified(%s) verified %q, want %q", name, seen, filepath.Join(real, want))
		}
	}
	if got := readFile(t, filepath.Join(ws, "private", "secret.txt")); got != "s3cret" {
		t.Errorf("secret.txt = %q after refused writes", got)
	}
	if got := listDir(t, filepath.Join(ws, "private")); len(got) != 1 {
		t.Errorf("private/ holds %v after refused writes, want only secret.txt", got)
	}
	if err := WriteVerified(root, "alias/new.txt", []byte("ok"), 0o644, func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(ws, "private", "new.txt")); got != "ok" {
		t.Errorf("private/new.txt = %q, want the accepted write", got)
	}
}
