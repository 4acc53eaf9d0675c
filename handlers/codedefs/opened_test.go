package codedefs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/handlers/search"
)

// TestDirectoryJudgedWhereItIs: a directory named for listing that is a
// link into an excluded directory (swapped in after the caller judged the
// name) is refused, as the walking tools refuse such a start
// (search.TestStartJudgedWhereItIs); a link to a directory that is not
// excluded is listed with its files judged where they really are.
func TestDirectoryJudgedWhereItIs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handles are named on Linux only")
	}
	requireCtags(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"private/secret.go": goFunc("Secret"), "src/ok.go": goFunc("Ok"), "src/keys.go": goFunc("Keys")})
	for name, target := range map[string]string{"lib": "private", "alias": "src"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	var judged []string
	exclude := func(rel string, isDir bool) bool {
		judged = append(judged, rel)
		return (rel == "private" && isDir) || strings.HasPrefix(rel, "private/") || rel == "src/keys.go"
	}
	var l Lister
	got, err := l.List(t.Context(), openRoot(t, ws), "lib", exclude)
	var xe *search.ExcludedError
	if !errors.As(err, &xe) || xe.Path != "lib" || xe.Real != "private" {
		t.Errorf("List(lib -> private) = %q, %v; want a *search.ExcludedError for private", got, err)
	}
	judged = nil
	if got, want := list(t, &l, ws, "alias", exclude), block("ok.go", "func Ok() {}"); got != want {
		t.Errorf("List(alias -> src):\n got:\n%s\nwant:\n%s", got, want)
	}
	if want := "src src/keys.go src/ok.go"; strings.Join(judged, " ") != want {
		t.Errorf("exclude judged %q, want %q (where the files really are)", strings.Join(judged, " "), want)
	}
}
