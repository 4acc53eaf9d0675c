//go:build unix

package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/ignore"
)

// Benchmarks run ours and rg side by side in one loop, on the same tree,
// and report ratios (ours/rg: below 1 is faster than rg) with the load
// average, since the machine they run on may be shared:
//
//	go test -run '^$' -bench 'GoTree|Walk100k' -benchtime 20x ./handlers/search/
//
// BenchmarkSearch2GB (peak RSS while searching a generated 2 GB tree) runs
// only with TOOLGATE_BENCH_2GB=1, as writing the tree takes a while.

// benchPatterns cover each class of pattern; the hit counts are those of
// Go 1.26's source tree. Patterns with more than search_files's 300 results
// let it stop early, while rg prints every match; the others are read to
// the end of the tree by both.
var benchPatterns = []struct{ name, regex string }{
	{"literal", "ErrUnexpectedEOF"},           // 438 lines
	{"literal-servehttp", "ServeHTTP"},        // 162 lines in 43 files
	{"literal-many", "err != nil"},            // 23,726 lines
	{"literal-rare", "ErrNoDeadline"},         // 16 lines in 7 files
	{"regex", `func \w+Error\(`},              // 307 lines
	{"word", `\bRoundTrip\b`},                 // 211 lines
	{"alternation", `Hijacker|CloseNotifier`}, // 91 lines
	{"fold-phrase", `(?i)deadline exceeded`},  // 15 lines
	{"fold-word", `(?i)deprecated`},           // 638 lines
}

// sideBySide times each named run once per iteration, in turn, and reports
// every run's time and CPU time per op against the last one's (the
// baseline). The CPU ratio moves less with the machine's load than the
// time ratio: on a busy machine a run waits for a core, and how long
// depends on what else runs.
type sideBySide struct {
	names []string
	runs  []func() time.Duration // each returns the CPU time it used
	total []time.Duration
	cpu   []time.Duration
}

// add adds a run in this process; its CPU time is the process's.
func (s *sideBySide) add(name string, run func()) {
	s.addCPU(name, func() time.Duration {
		before := selfCPU()
		run()
		return selfCPU() - before
	})
}

// addProcess adds a run of a child process, whose state it returns.
func (s *sideBySide) addProcess(name string, run func() *os.ProcessState) {
	s.addCPU(name, func() time.Duration {
		st := run()
		return st.UserTime() + st.SystemTime()
	})
}

func (s *sideBySide) addCPU(name string, run func() time.Duration) {
	s.names = append(s.names, name)
	s.runs = append(s.runs, run)
	s.total = append(s.total, 0)
	s.cpu = append(s.cpu, 0)
}

func (s *sideBySide) loop(b *testing.B) {
	n := 0
	for b.Loop() {
		for i, run := range s.runs {
			t0 := time.Now()
			s.cpu[i] += run()
			s.total[i] += time.Since(t0)
		}
		n++
	}
	last := len(s.names) - 1
	for i, name := range s.names {
		b.ReportMetric(float64(s.total[i].Milliseconds())/float64(n), name+"-ms")
		b.ReportMetric(float64(s.cpu[i].Milliseconds())/float64(n), name+"-cpu-ms")
		if i < last {
			b.ReportMetric(float64(s.total[i])/float64(s.total[last]), name+"/"+s.names[last])
			b.ReportMetric(float64(s.cpu[i])/float64(s.cpu[last]), name+"-cpu/"+s.names[last])
		}
	}
	b.ReportMetric(loadAverage(), "load-avg")
}

// selfCPU is the CPU time this process has used, user and system.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is the one-minute load average (0 where /proc is missing).
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	return f
}

// rgRun runs ripgrep as search_files's baseline: one spawn per search, JSON
// output with one line of context.
func rgRun(b *testing.B, rg, dir, regex string) func() *os.ProcessState {
	return func() *os.ProcessState {
		cmd := exec.Command(rg, "--json", "--context", "1", "-e", regex, ".")
		cmd.Dir = dir
		if out, err := cmd.Output(); err != nil && cmd.ProcessState.ExitCode() != 1 || len(out) == 0 {
			b.Fatalf("rg %s: %v", regex, err)
		}
		return cmd.ProcessState
	}
}

// defaultOptions is the search search_files runs with toolgate's defaults
// (handlers/search_files.go): the default dialect's ripgrep glob, which
// overrides the ignore rules (GlobOverride with no file pattern, Cline's
// --glob '*'); the workspace's .clineignore rules as Exclude; and the
// hard-link check of every file that matched as Withhold.
func defaultOptions(b *testing.B, root *os.Root, regex string) Options {
	w, err := ignore.NewPollingWatcher(root)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	rules := w.Current()
	return Options{
		Regex:        regex,
		GlobOverride: true,
		Exclude: func(rel string, isDir bool) bool {
			_, hit := rules.Match(rel, isDir)
			return hit
		},
		Withhold: func(rel string) bool {
			info, err := root.Lstat(rel)
			if err != nil || !info.Mode().IsRegular() {
				return false
			}
			st, ok := info.Sys().(*syscall.Stat_t)
			return ok && st.Nlink > 1
		},
	}
}

func searchRun(b *testing.B, root *os.Root, opts Options) func() {
	return func() {
		res, err := Search(context.Background(), root, opts)
		if err != nil {
			b.Fatal(err)
		}
		_ = res.Format()
	}
}

// BenchmarkSearchGoTree searches Go's source tree per pattern, with
// toolgate's defaults (defaultOptions): cold (no index), repeated through an index (what search_files does from the second
// call on), the same index without trigram summaries (MaxMemory too small
// for any), and rg.
func BenchmarkSearchGoTree(b *testing.B) {
	src := filepath.Join(goRoot(b), "src")
	rg := requireTool(b, "rg")
	root := openRoot(b, src)
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			cold := defaultOptions(b, root, p.regex)
			indexed, plain := cold, cold
			indexed.Index = NewIndex(IndexOptions{})
			plain.Index = NewIndex(IndexOptions{MaxMemory: 1})
			for range 2 { // the second read of an unchanged file builds its summary
				searchRun(b, root, indexed)()
				searchRun(b, root, plain)()
			}
			var s sideBySide
			s.add("cold", searchRun(b, root, cold))
			s.add("indexed", searchRun(b, root, indexed))
			s.add("nosummary", searchRun(b, root, plain))
			s.addProcess("rg", rgRun(b, rg, src, p.regex))
			s.loop(b)
		})
	}
}

// wideTree makes n files in a tree ten directories wide per level.
func wideTree(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	made := map[string]bool{}
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("d%d/e%d/f%d", i%10, i/10%10, i/100%100))
		if !made[d] {
			made[d] = true
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("file%d.txt", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkWalk100k lists 100,000 files: Walk (list_files) vs rg --files,
// and, for the raw getdents listing Walk uses, a walk of the same tree
// listing each directory with os.File.ReadDir instead.
func BenchmarkWalk100k(b *testing.B) {
	rg := requireTool(b, "rg")
	dir := wideTree(b, 100_000)
	root := openRoot(b, dir)
	var s sideBySide
	s.add("ours", func() {
		res, err := Walk(context.Background(), root, WalkOptions{Recursive: true, Limit: -1})
		if err != nil || len(res.Entries) < 100_000 {
			b.Fatalf("Walk: %d entries, %v", len(res.Entries), err)
		}
	})
	s.add("getdents", func() { listTree(b, root, readDirTyped) })
	s.add("readdir", func() { listTree(b, root, readDirStd) })
	s.addProcess("rg", func() *os.ProcessState {
		cmd := exec.Command(rg, "--files", ".")
		cmd.Dir = dir
		if _, err := cmd.Output(); err != nil {
			b.Fatal(err)
		}
		return cmd.ProcessState
	})
	s.loop(b)
}

// readDirStd is the standard library's listing, which readDirTyped replaces.
func readDirStd(f *os.File) ([]dirent, error) {
	entries, err := f.ReadDir(-1)
	out := make([]dirent, 0, len(entries))
	for _, e := range entries {
		out = append(out, dirent{name: e.Name(), typ: e.Type()})
	}
	return out, err
}

// listTree lists every directory below root through os.Root handles, as
// the walks do, with the given listing function.
func listTree(b *testing.B, root *os.Root, list func(*os.File) ([]dirent, error)) {
	var walk func(r *os.Root) int
	walk = func(r *os.Root) int {
		f, err := r.Open(".")
		if err != nil {
			b.Fatal(err)
		}
		entries, err := list(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		n := len(entries)
		for _, e := range entries {
			if e.Type().IsDir() {
				sub, err := r.OpenRoot(e.Name())
				if err != nil {
					b.Fatal(err)
				}
				n += walk(sub)
				sub.Close()
			}
		}
		return n
	}
	if n := walk(root); n < 100_000 {
		b.Fatalf("listed %d entries", n)
	}
}

// BenchmarkSearch2GB searches a generated 2 GB tree, cold and through an
// index, and reports the process's peak RSS during the searches.
func BenchmarkSearch2GB(b *testing.B) {
	if os.Getenv("TOOLGATE_BENCH_2GB") == "" {
		b.Skip("set TOOLGATE_BENCH_2GB=1 to write and search a 2 GB tree")
	}
	dir := bigTree(b, 2<<30)
	root := openRoot(b, dir)
	ix := NewIndex(IndexOptions{})
	runtime.GC()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("cannot reset peak RSS: %v", err)
	}
	for b.Loop() {
		for _, opts := range []Options{{Regex: "needle_[0-9]+"}, {Regex: "needle_7", Index: ix}} {
			if _, err := Search(context.Background(), root, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MB")
}

// bigTree writes about size bytes of text in 1 MB files, a few of them
// holding a match.
func bigTree(b *testing.B, size int) string {
	b.Helper()
	dir := b.TempDir()
	line := []byte("the quick brown fox jumps over the lazy dog 0123456789 lorem ipsum\n")
	chunk := bytes.Repeat(line, (1<<20)/len(line))
	for i := range size / len(chunk) {
		d := filepath.Join(dir, fmt.Sprintf("d%02d", i%64))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		data := chunk
		if i%97 == 0 {
			data = append(append([]byte(nil), chunk...), fmt.Sprintf("needle_%d\n", i)...)
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// peakRSS reads VmHWM, the process's peak resident set, in bytes.
func peakRSS(b *testing.B) int64 {
	b.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	if hwm := vmHWM(string(data)); hwm > 0 {
		return hwm
	}
	b.Skip("no VmHWM in /proc/self/status")
	return 0
}
