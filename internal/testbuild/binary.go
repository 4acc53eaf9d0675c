package testbuild

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// The module's programs that tests start, by import path.
const (
	Toolgate      = "github.com/toolgate/toolgate/cmd/toolgate"
	MCPTestServer = "github.com/toolgate/toolgate/internal/mcphub/testdata/testserver"
)

type build struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

var (
	mu     sync.Mutex
	builds = map[string]*build{}
)

// Binary returns the path of the program pkg (an import path) built with
// `go build`, building it on the first call in this test binary; a
// failed build fails the test with the compiler's output.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	mu.Lock()
	b := builds[pkg]
	if b == nil {
		b = &build{}
		builds[pkg] = b
	}
	mu.Unlock()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "toolgate-testbuild-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, path.Base(pkg))
		b.out, b.err = exec.Command("go", "build", "-o", b.path, pkg).CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, b.err, b.out)
	}
	return b.path
}
