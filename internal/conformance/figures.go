package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// FiguresFile is where each harness appends its headline figure, so the
// test suite can print them after `go test ./...`, which shows a passing
// test's log only with -v: TOOLGATE_CONFORMANCE_FIGURES when set (test.sh
// gives each run a file of its own, so that harnesses run by hand at the
// same time do not add their lines to its list), else one file in the
// temporary directory.
func FiguresFile() string {
	if f := os.Getenv("TOOLGATE_CONFORMANCE_FIGURES"); f != "" {
		return f
	}
	return filepath.Join(os.TempDir(), "toolgate-conformance-figures.txt")
}

var figuresMu sync.Mutex

// Announce appends one line to FiguresFile; a harness whose file cannot
// be written still passes or fails on its figures, so an error is only
// returned for its log.
func Announce(format string, args ...any) error {
	figuresMu.Lock()
	defer figuresMu.Unlock()
	f, err := os.OpenFile(FiguresFile(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(f, format+"\n", args...); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
