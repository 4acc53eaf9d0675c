//go:build unix

package search

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// firstSearchCopies of Go's source tree make the 1.4 GB tree of
// BenchmarkFirstSearch.
const firstSearchCopies = 9

// BenchmarkFirstSearch is search_files's first call after toolgate starts,
// on a 1.4 GB tree (copies of Go's source tree, written once under the
// temporary directory and kept for later runs): each iteration starts a
// fresh process that searches once through a new index, and rg, side by
// side, and reports the time ratio and both peak resident sets.
//
//	go test -run '^$' -bench FirstSearch -benchtime 3x -timeout 30m ./handlers/search/
func BenchmarkFirstSearch(b *testing.B) {
	if dir := os.Getenv("TOOLGATE_FIRST_SEARCH_DIR"); dir != "" {
		firstSearchChild(b, dir, os.Getenv("TOOLGATE_FIRST_SEARCH_REGEX"))
		return
	}
	rg := requireTool(b, "rg")
	dir := copiesOfGoTree(b, firstSearchCopies)
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			var s sideBySide
			var oursRSS, rgRSS int64
			s.addProcess("ours", func() *os.ProcessState {
				cmd := exec.Command(self, "-test.run=^$", "-test.bench=^BenchmarkFirstSearch$", "-test.benchtime=1x")
				cmd.Env = append(os.Environ(), "TOOLGATE_FIRST_SEARCH_DIR="+dir, "TOOLGATE_FIRST_SEARCH_REGEX="+p.regex)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				rss, err := runPeakRSS(cmd)
				if err != nil || !strings.Contains(out.String(), "found:") {
					b.Fatalf("child: %v: %s", err, out.String())
				}
				oursRSS = max(oursRSS, rss, reportedRSS(out.String()))
				return cmd.ProcessState
			})
			s.addProcess("rg", func() *os.ProcessState {
				cmd := exec.Command(rg, "--json", "--context", "1", "-e", p.regex, ".")
				cmd.Dir = dir
				var out bytes.Buffer
				cmd.Stdout = &out
				rss, err := runPeakRSS(cmd)
				if err != nil || out.Len() == 0 {
					b.Fatalf("rg: %v", err)
				}
				rgRSS = max(rgRSS, rss)
				return cmd.ProcessState
			})
			s.loop(b)
			b.ReportMetric(float64(oursRSS)/(1<<20), "ours-peak-RSS-MB")
			b.ReportMetric(float64(rgRSS)/(1<<20), "rg-peak-RSS-MB")
		})
	}
}

// firstSearchChild is the fresh process: one search as search_files runs
// it with toolgate's defaults (defaultOptions), its answer formatted.
func firstSearchChild(b *testing.B, dir, regex string) {
	root := openRoot(b, dir)
	opts := defaultOptions(b, root, regex)
	for b.Loop() {
		t0 := time.Now()
		opts.Index = NewIndex(IndexOptions{})
		res, err := Search(context.Background(), root, opts)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Printf("found: %d matches, %d bytes of answer in %v\n", res.Count, len(res.Format()), time.Since(t0))
	}
	// The poll of runPeakRSS can miss a peak in the last millisecond; the
	// child's own VmHWM, read before it exits, cannot.
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		fmt.Printf("peak-rss: %d\n", vmHWM(string(data)))
	}
}

// reportedRSS is the peak resident set a child printed, in bytes (0 if none).
func reportedRSS(out string) int64 {
	_, rest, ok := strings.Cut(out, "peak-rss: ")
	if !ok {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]), 10, 64)
	return n
}

// runPeakRSS runs cmd and returns its peak resident set in bytes: its
// VmHWM, read every millisecond until it exits. (The rusage of a child
// is no use here: Go starts children with vfork, and Linux counts the
// parent's resident set into the child's ru_maxrss at exec.)
func runPeakRSS(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
				err = nil // rg: no match
			}
			return peak, err
		case <-tick.C:
			if data, err := os.ReadFile(status); err == nil {
				peak = max(peak, vmHWM(string(data)))
			}
		}
	}
}

// vmHWM is the VmHWM line of a /proc status file in bytes (0 if absent).
func vmHWM(status string) int64 {
	for _, l := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// copiesOfGoTree writes n copies of Go's source tree under the temporary
// directory once; later runs reuse them.
func copiesOfGoTree(b *testing.B, n int) string {
	b.Helper()
	src := filepath.Join(goRoot(b), "src")
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("toolgate-bench-gosrc-x%d", n))
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		dst := filepath.Join(dir, fmt.Sprintf("copy%d", i))
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			target := filepath.Join(dst, rel)
			switch {
			case d.IsDir():
				return os.MkdirAll(target, 0o755)
			case d.Type().IsRegular():
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				return os.WriteFile(target, data, 0o644)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}
