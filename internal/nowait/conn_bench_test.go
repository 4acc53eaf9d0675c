package nowait

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchServeEnv makes the test binary the benchmark's server: "net" or
// "nowait", the kind of connections it serves on.
const benchServeEnv = "NOWAIT_BENCH_SERVE"

// TestMain serves as BenchmarkNowaitConn's server process when asked.
func TestMain(m *testing.M) {
	if kind := os.Getenv(benchServeEnv); kind != "" {
		benchServe(kind)
		return
	}
	os.Exit(m.Run())
}

// benchAnswer is the server's answer: 2 KB, as a read's.
var benchAnswer = strings.Repeat("0123456789abcde\n", 128)

// benchServe prints its address and serves until its input closes.
func benchServe(kind string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	if kind == "nowait" {
		ln = Listener(ln, nil)
	}
	fmt.Println(ln.Addr())
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Length", strconv.Itoa(len(benchAnswer)))
		io.WriteString(w, benchAnswer)
	}))
	io.Copy(io.Discard, os.Stdin)
}

// BenchmarkNowaitConn: sequential POSTs of a small body answered with
// 2 KB, to a server process of its own (this test binary) whose
// connections are net's own (conn=net) or raw (conn=nowait). It reports
// the server's context switches and CPU per request beside the time:
// with net's connections the runtime's monitor thread is woken by each
// request's first system call and polls while it runs (the package's
// doc). The server must be a process of its own, idle between requests
// as a server is: in one process the client's goroutines keep it busy.
func BenchmarkNowaitConn(b *testing.B) {
	for _, kind := range []string{"net", "nowait"} {
		b.Run("conn="+kind, func(b *testing.B) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), benchServeEnv+"="+kind)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer cmd.Wait()
			defer stdin.Close()
			addr, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			url := "http://" + strings.TrimSpace(addr) + "/"
			call := func() {
				resp, err := client.Post(url, "application/json", strings.NewReader(`{"type":"tool_use"}`))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			for range 100 {
				call()
			}
			pid := cmd.Process.Pid
			switches, cpu := processCounts(b, pid)
			b.ResetTimer()
			for range b.N {
				call()
			}
			b.StopTimer()
			s, c := processCounts(b, pid)
			b.ReportMetric(float64(s-switches)/float64(b.N), "ctxsw/op")
			b.ReportMetric(float64(c-cpu)*1e4/float64(b.N), "server-cpu-µs/op") // clock ticks of 10 ms
		})
	}
}

// processCounts is the process's context switches (every thread's,
// voluntary and not) and its CPU time in clock ticks, so far.
func processCounts(b *testing.B, pid int) (switches, ticks int) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range tasks {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the thread ended
		}
		for line := range strings.Lines(string(data)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				n, _ := strconv.Atoi(strings.TrimSpace(v))
				switches += n
			}
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	return switches, utime + stime
}
