package handlers

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/filememory"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect/cline"
)

// openIn counts the process's descriptors open on files in dir: other
// tests' descriptors, opened or closed meanwhile, do not count.
func openIn(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, dir+string(os.PathSeparator)) {
			n++
		}
	}
	return n
}

// TestReadClosesAfterAnswer: read_file leaves the file it read open
// until its request's answer is sent (AfterAnswer.Run), on success and
// on failure alike, and closes it at once without one; many reads leave
// no descriptor behind.
func TestReadClosesAfterAnswer(t *testing.T) {
	ws := workspaceWith(t, map[string]string{
		"one_kb.txt": strings.Repeat("0123456789abcde\n", 64),
		"binary.bin": "\x00\x01\x02",
		"image.png":  "\x89PNG\r\n\x1a\n",
	})
	files := filememory.New(filememory.Config{})
	read := func(a *tool.AfterAnswer, path string) error {
		call := &tool.Call{Workspace: ws, Files: files, Texts: cline.Texts{}}
		call.Attach(tool.Runtime{AfterAnswer: a})
		_, err := readFile(context.Background(), call, &ReadFileInput{Path: path})
		return err
	}
	dir, err := filepath.EvalSymlinks(ws.Dir)
	if err != nil {
		t.Fatal(err)
	}
	open := func() int { return openIn(t, dir) }
	for _, c := range []struct {
		path string
		fail bool
	}{{"one_kb.txt", false}, {"binary.bin", true}, {"image.png", false}} {
		_, a := tool.WithAfterAnswer(context.Background())
		if err := read(a, c.path); (err != nil) != c.fail {
			t.Fatalf("%s: error %v, want one: %v", c.path, err, c.fail)
		}
		if n := open(); n != 1 {
			t.Fatalf("%s: %d descriptors before the answer, want 1 (the file still open)", c.path, n)
		}
		a.Run()
		if n := open(); n != 0 {
			t.Fatalf("%s: %d descriptors after the answer, want 0", c.path, n)
		}
	}
	for range 100 {
		_ = read(nil, "one_kb.txt")
		_ = read(nil, "binary.bin")
	}
	_, a := tool.WithAfterAnswer(context.Background())
	for range 100 {
		_ = read(a, "one_kb.txt")
	}
	a.Run()
	if n := open(); n != 0 {
		t.Fatalf("%d descriptors after many reads, want 0", n)
	}
}

// BenchmarkCloseAfterAnswer times read_file of a 1 KB file up to its
// answer, the file closed after the answer (AfterAnswer, run outside the
// time, as the server runs it after sending the answer) and, side by
// side, closed before it returns. ratio is the first's time over the
// second's.
//
//	go test -run '^$' -bench CloseAfterAnswer -benchtime 200000x ./handlers/
func BenchmarkCloseAfterAnswer(b *testing.B) {
	ws := workspaceWith(b, map[string]string{"one_kb.txt": strings.Repeat("0123456789abcde\n", 64)})
	files := filememory.New(filememory.Config{})
	in := &ReadFileInput{Path: "one_kb.txt"}
	read := func(a *tool.AfterAnswer) time.Duration {
		call := &tool.Call{Workspace: ws, Files: files, Texts: cline.Texts{}}
		call.Attach(tool.Runtime{AfterAnswer: a})
		t := time.Now()
		if _, err := readFile(context.Background(), call, in); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	// Turn about, call by call, and the medians: the shared machine's
	// load falls on both alike, and its spikes on neither median.
	after, now := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	for range b.N {
		_, a := tool.WithAfterAnswer(context.Background())
		after = append(after, read(a))
		a.Run()
		now = append(now, read(nil))
	}
	slices.Sort(after)
	slices.Sort(now)
	b.ReportMetric(float64(after[len(after)/2].Nanoseconds()), "after_answer_ns/op")
	b.ReportMetric(float64(now[len(now)/2].Nanoseconds()), "at_once_ns/op")
	b.ReportMetric(float64(after[len(after)/2])/float64(now[len(now)/2]), "ratio")
}
