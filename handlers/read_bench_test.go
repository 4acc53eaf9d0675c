package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect/cline"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkReadPipeline runs read_file of a 1 KB file through the whole
// coordinator (Execute in the default session, Cline's dialect, the
// default config: policy, ignore rules, the memory of reads, Cline's
// numbered text, metrics, the call record in a memory store), each call
// with a fresh tool_use id, and in the same run, alternating round by
// round, a bare read of the same file (os.Root, the lines numbered as
// Cline numbers them). It reports the CPU time per call of each side and
// their ratio, and the heap allocations of a pipeline call: the part of a
// POST /v1/tool_use read between the HTTP layer and the store's writer.
//
//	go test -run '^$' -bench ReadPipeline -benchtime 2000x ./handlers/
func BenchmarkReadPipeline(b *testing.B) {
	pipeline, bare := newReadPipeline(b)
	const rounds = 10
	per := b.N/rounds + 1
	var pipeCPU, bareCPU time.Duration
	var allocs, goroutines uint64
	for range rounds {
		c0, a0, g0 := processCPU(), mallocCount(), goroutinesCreated()
		for range per {
			pipeline()
		}
		c1, a1, g1 := processCPU(), mallocCount(), goroutinesCreated()
		goroutines += g1 - g0
		for range per {
			bare()
		}
		pipeCPU, bareCPU, allocs = pipeCPU+c1-c0, bareCPU+processCPU()-c1, allocs+a1-a0
	}
	calls := float64(rounds * per)
	b.ReportMetric(float64(pipeCPU.Nanoseconds())/calls/1e3, "pipeline_cpu_µs/call")
	b.ReportMetric(float64(bareCPU.Nanoseconds())/calls/1e3, "bare_cpu_µs/call")
	b.ReportMetric(float64(pipeCPU)/float64(bareCPU), "ratio")
	b.ReportMetric(float64(allocs)/calls, "pipeline_allocs/call")
	b.ReportMetric(float64(goroutines)/calls, "pipeline_goroutines/call")
}

// newReadPipeline makes the two sides BenchmarkReadPipeline and
// BenchmarkReadPipelineCold compare: read_file of a 1 KB file through
// the coordinator (a fresh tool_use id each call), and a bare read of
// the same file with its lines numbered as Cline numbers them.
func newReadPipeline(b *testing.B) (pipeline, bare func()) {
	b.Helper()
	dir := b.TempDir()
	content := strings.Repeat("0123456789abcde\n", 64) // 1 KiB
	if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	coord := coordinator.New(coordinator.Options{Config: coordinator.DefaultConfig(), Workspace: ws, Tools: Default(),
		Dialects: []tool.Dialect{cline.Dialect()}, Registerer: prometheus.NewRegistry()})
	b.Cleanup(coord.Close)
	sess, err := coord.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		b.Fatal(err)
	}
	input := json.RawMessage(`{"path":"one_kb.txt"}`)
	n := 0
	pipeline = func() {
		n++
		res, rec := coord.Execute(context.Background(), sess, "", api.ToolUse{Type: api.TypeToolUse, ID: "toolu_" + strconv.Itoa(n), Name: "read_file", Input: input})
		if rec.Status != api.StatusSucceeded || !strings.Contains(res.Content[0].Text, "\n64 | 0123456789abcde\n") {
			b.Fatalf("read_file: %s %+v", rec.Status, res.Content)
		}
	}
	bare = func() {
		data, err := ws.Root.ReadFile("one_kb.txt")
		if err != nil {
			b.Fatal(err)
		}
		var out []byte
		for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if i > 0 {
				out = append(out, '\n')
			}
			out = strconv.AppendInt(out, int64(i+1), 10)
			out = append(out, " | "...)
			out = append(out, line...)
		}
		_ = api.NewToolResult("toolu_bare", string(out), false)
	}
	return pipeline, bare
}

// processCPU is the user and system CPU time the process has used (the
// runtime's own threads count too, as they would in a server).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// mallocCount is the number of heap allocations the process has made.
func mallocCount() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// goroutinesCreated is the number of goroutines the process has started.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// BenchmarkOpenRegular opens and closes a 1 KB file as read_file does
// (openRegularAt: non-blocking, its other names judged from the Stat made
// on opening) and, side by side, as it did before: a blocking open, which
// Go's os package makes non-blocking and blocking again with four fcntl
// calls, then Stat, then CheckOpened with a Stat of its own.
func BenchmarkOpenRegular(b *testing.B) {
	ws := workspaceWith(b, map[string]string{"one_kb.txt": strings.Repeat("0123456789abcde\n", 64)})
	call := &tool.Call{Workspace: ws}
	benchpair.Run(b, func() {
		f, _, err := openRegularAt(call, "one_kb.txt")
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}, func() {
		f, err := ws.Root.Open("one_kb.txt")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Stat(); err != nil {
			b.Fatal(err)
		}
		if err := call.CheckOpened(f, "one_kb.txt", false); err != nil {
			b.Fatal(err)
		}
		f.Close()
	})
}

// BenchmarkOpenPlain opens, stats, reads and closes a 1 KB file as
// read_file does (openReadable: one openat2 beneath the workspace, the
// bare descriptor) and, side by side, through os.Root (openRegularAt:
// one openat per component, an os.File), at the top of the workspace and
// three directories down.
//
//	go test -run '^$' -bench OpenPlain -benchtime 20000x ./handlers/
func BenchmarkOpenPlain(b *testing.B) {
	kb := strings.Repeat("0123456789abcde\n", 64)
	ws := workspaceWith(b, map[string]string{"one_kb.txt": kb, "src/pkg/sub/one_kb.txt": kb})
	call := &tool.Call{Workspace: ws}
	buf := make([]byte, 4<<10)
	for _, rel := range []string{"one_kb.txt", "src/pkg/sub/one_kb.txt"} {
		b.Run(strconv.Itoa(strings.Count(rel, "/"))+"_dirs", func(b *testing.B) {
			read := func(f readable, err error) {
				if err != nil {
					b.Fatal(err)
				}
				if n, _ := f.Read(buf); n != len(kb) {
					b.Fatalf("read %d bytes", n)
				}
				f.Close()
			}
			benchpair.Run(b, func() {
				f, _, err := openReadable(call, rel)
				read(f, err)
			}, func() {
				f, _, err := openRegularAt(call, rel)
				read(f, err)
			})
		})
	}
}

// BenchmarkStateHashers hashes a 1 KB file's state as a read does, with
// a recycled hasher (stateHashers) and, side by side, with one made for
// the read and its sum allocated.
//
//	go test -run '^$' -bench StateHashers -benchtime 100000x ./handlers/
func BenchmarkStateHashers(b *testing.B) {
	kb := []byte(strings.Repeat("0123456789abcde\n", 64))
	var sink tool.FileState
	benchpair.Run(b, func() {
		h := newStateHasher(nil, nil)
		h.h.Write(kb)
		sink.Hash = [32]byte(h.h.Sum(h.sum[:0]))
		h.release()
	}, func() {
		h := &stateHasher{h: sha256.New()}
		h.h.Write(kb)
		copy(sink.Hash[:], h.h.Sum(nil))
		runtime.KeepAlive(h)
	})
}
