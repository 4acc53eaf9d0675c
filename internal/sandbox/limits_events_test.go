package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// TestEventCountIn: an events file read again from its start, open, says
// what the file read by path says, as its counts change.
func TestEventCountIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.events")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("low 0\nhigh 0\nmax 3\noom 1\noom_kill 0\n")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, content := range []string{"low 0\nhigh 0\nmax 3\noom 1\noom_kill 0\n", "low 0\nhigh 0\nmax 3\noom 2\noom_kill 12\n"} {
		write(content)
		for _, key := range []string{"oom_kill", "max", "absent"} {
			if got, want := eventCountIn(f, path, key), eventCount(path, key); got != want {
				t.Errorf("%q in %q: %d open, %d by path", key, content, got, want)
			}
		}
	}
	if got := eventCountIn(f, path, "oom_kill"); got != 12 {
		t.Errorf("oom_kill = %d, want 12", got)
	}
	if got := eventCountIn(nil, path, "max"); got != 3 {
		t.Errorf("by path: max = %d, want 3", got)
	}
}

// BenchmarkLimitEvents reads which limit a run reached from its cgroups'
// event files opened ahead (fast) and by path (plain), in alternating
// turns, as a run's Finish does once its command has ended.
//
//	go test -run '^$' -bench LimitEvents -benchtime 2000x ./internal/sandbox
func BenchmarkLimitEvents(b *testing.B) {
	lc := newLimitCgroups(Limits{Processes: 64, MemoryBytes: 256 << 20})
	if lc == nil {
		b.Skip("no limit cgroups here")
	}
	defer func() {
		lc.closed.Store(true)
		lc.closeParents()
	}()
	r, files, err := lc.make()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		_ = f.Close()
	}
	defer r.finish()
	byPath := &runLimits{parent: lc, dirs: r.dirs, hiers: r.hiers}
	benchpair.Run(b, func() { _ = r.reached() }, func() { _ = byPath.reached() })
	if got, want := r.reached(), byPath.reached(); got != want {
		b.Fatalf("open: %q, by path: %q", got, want)
	}
}
