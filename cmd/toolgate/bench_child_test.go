package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/launch"
)

// benchChildEnv, when set, makes the test binary a server for the
// benchmarks that measure a server as its own process instead of running
// tests: "serve\x1f<args>" runs toolgate serve with the args,
// "bare\x1f<dir>" the bare read handler of ToolUseVsBare on a loopback
// port. Either prints the line "toolgate listening on <url>" and serves
// until killed. On SIGUSR1 a child collects its garbage and prints the
// line "bench heap <live bytes> <in-use bytes>" (see benchServer.heap).
const benchChildEnv = "TOOLGATE_BENCH_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(benchChildEnv); spec != "" {
		if err := benchChild(strings.Split(spec, "\x1f")); err != nil {
			fmt.Fprintln(os.Stderr, "bench child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func benchChild(spec []string) error {
	// A child serves on its own, as the toolgate binary does: it governs
	// GOMAXPROCS as main lets it (internal/procs).
	governProcs = true
	// TOOLGATE_BENCH_CPUPROFILE=<file> profiles the child until the
	// benchmark ends it.
	if path := os.Getenv("TOOLGATE_BENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path + "." + spec[0])
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		go func() {
			<-sig
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(0)
		}()
	}
	if os.Getenv("TOOLGATE_BENCH_HEAPPROFILE") != "" {
		runtime.MemProfileRate = 4096 // finer than the default 512 KB
	}
	go reportHeap(spec[0])
	switch spec[0] {
	case "serve":
		return run(context.Background(), append([]string{"toolgate", "serve"}, spec[1:]...), os.Getenv, strings.NewReader(""), os.Stdout, os.Stderr)
	case "bare":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		fmt.Printf("%shttp://%s\n", launch.ListeningPrefix, ln.Addr())
		return http.Serve(ln, bareReadFile(childTB{}, spec[1]))
	}
	return fmt.Errorf("unknown child %q", spec[0])
}

// reportHeap answers each SIGUSR1 with the live heap after a full
// collection and the heap's in-use spans, on stdout; with
// TOOLGATE_BENCH_HEAPPROFILE=<file> it writes the heap profile to
// <file>.<child>.<n> too (go tool pprof -sample_index=inuse_space).
func reportHeap(child string) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	for n := 1; ; n++ {
		<-sig
		// Twice: the first moves what sync.Pools hold to their victim
		// caches, the second frees it.
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if path := os.Getenv("TOOLGATE_BENCH_HEAPPROFILE"); path != "" {
			if f, err := os.Create(fmt.Sprintf("%s.%s.%d", path, child, n)); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
		fmt.Printf("bench heap %d %d\n", m.HeapAlloc, m.HeapInuse)
	}
}

// childTB is the little of testing.TB that bareReadFile uses, outside a
// test.
type childTB struct{ testing.TB }

func (childTB) Fatal(args ...any) { panic(fmt.Sprint(args...)) }
func (childTB) Cleanup(func())    {}
func (childTB) Helper()           {}

// childCPU is the user and system CPU time process pid has used (all its
// threads).
func childCPU(b *testing.B, pid int) time.Duration {
	own, _, err := launch.CPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	return own
}

// benchServer is a server process the benchmark started.
type benchServer struct {
	srv *launch.Server
	url string
	pid int
	log string // the file its log (stderr) goes to
}

// startChild starts this test binary again as a server (see
// benchChildEnv) and waits for it to listen.
func startChild(b *testing.B, spec ...string) *benchServer {
	return startChildEnv(b, nil, spec...)
}

// startChildEnv is startChild with env added to the child's environment.
func startChildEnv(b *testing.B, env []string, spec ...string) *benchServer {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return startServer(b, spec[0], exe, append([]string{benchChildEnv + "=" + strings.Join(spec, "\x1f")}, env...))
}

// startServer starts bin with args and env added to this process's, a
// server that prints "toolgate listening on <url>", and waits for it to
// listen. Its log (stderr) goes to a file, as a server's does. The server
// is stopped when the benchmark ends.
func startServer(b *testing.B, name, bin string, env []string, args ...string) *benchServer {
	log := filepath.Join(b.TempDir(), "toolgate.log")
	srv, err := launch.Start(context.Background(), bin, launch.Options{
		Args: args, Token: "bench-token", Env: env, LogFile: log, Lines: true})
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	b.Cleanup(func() { _ = srv.Stop() })
	return &benchServer{srv: srv, url: srv.URL, pid: srv.Pid(), log: log}
}

// logTail is the end of the server's log, for a failure's message.
func (s *benchServer) logTail() string {
	log := s.srv.Log()
	return log[max(0, len(log)-4096):]
}

// heap has the server collect its garbage and returns its live heap and
// the heap's in-use spans, in bytes.
func (s *benchServer) heap(b *testing.B) (live, inUse uint64) {
	if err := s.srv.Signal(syscall.SIGUSR1); err != nil {
		b.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-s.srv.Lines():
			if !ok {
				b.Fatalf("the server exited: %s", s.logTail())
			}
			if _, err := fmt.Sscanf(line, "bench heap %d %d", &live, &inUse); err == nil {
				return live, inUse
			}
		case <-deadline:
			b.Fatal("the server did not report its heap")
		}
	}
}

// peakRSSDuring resets the server's peak RSS, runs f and returns the new
// peak (bytes) with f's result: the figure of VmHWM in /proc/PID/status,
// the server's own memory with the load generator left out.
func (s *benchServer) peakRSSDuring(b *testing.B, f func() int) (uint64, int) {
	if err := launch.ResetPeakRSS(s.pid); err != nil {
		b.Skipf("cannot reset the peak RSS: %v", err)
	}
	n := f()
	peak, err := launch.Memory(s.pid, "VmHWM")
	if err != nil {
		b.Fatal(err)
	}
	return peak, n
}
