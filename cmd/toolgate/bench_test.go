package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// BenchmarkToolUseVsBare posts read_file of a 1 KB file to a real toolgate
// over loopback and, in the same run, alternating round by round, the same
// request to a bare net/http handler that decodes the block, reads the
// file and encodes the same response shape. Every call has a fresh
// tool_use id (a repeated id is answered from the session's record without
// running the tool). Two routes: POST /v1/tool_use, and POST
// /v1/sessions/{sid}/messages with a one-block assistant message (the bare
// handler then decodes the message and answers a user message). It reports
// both throughputs, both p99 latencies and the throughput ratio at 1, 16
// and 64 connections, and the CPU time per call of each side with their
// ratio (cpu_ratio), which other load on the machine disturbs less, and
// the heap allocations per call of each side, which it does not disturb.
// The CPU profile (-cpuprofile) labels samples side=toolgate, bare or
// client: go tool pprof -tagfocus side=toolgate.
//
// toolgate and the bare handler run in this process unless
// TOOLGATE_BENCH_SEPARATE is set: then each runs as its own process (this
// test binary started again), as users run toolgate, and a process-wide
// setting such as the collector's touches one side only. A side's CPU
// time is then its server's, read from /proc, plus this process's, the
// load generator's; allocations are not counted.
//
//	go test -run '^$' -bench ToolUseVsBare -benchtime 3x ./cmd/toolgate/
//	TOOLGATE_BENCH_SEPARATE=1 go test -run '^$' -bench ToolUseVsBare -benchtime 3x ./cmd/toolgate/
func BenchmarkToolUseVsBare(b *testing.B) {
	dir := b.TempDir()
	content := strings.Repeat("0123456789abcde\n", 64) // 1 KiB
	if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	inst := &instance{token: "bench-token"}
	bareURL := ""
	tgPID, barePID := 0, 0 // the servers' processes when they run apart
	if os.Getenv("TOOLGATE_BENCH_SEPARATE") != "" {
		tg := startChild(b, append([]string{"serve", "--addr", "127.0.0.1:0", "--workspace", dir, "--log-format", "json"}, benchServerArgs(b)...)...)
		bare := startChild(b, "bare", dir)
		inst.url, tgPID, bareURL, barePID = tg.url, tg.pid, bare.url, bare.pid
	} else {
		// Profile labels (side=toolgate, bare, client) tell the three
		// apart in a CPU profile: goroutines inherit the labels of the
		// one that started them.
		pprof.Do(context.Background(), pprof.Labels("side", "toolgate"), func(context.Context) {
			inst = start(b, dir, benchServerArgs(b)...)
		})
		var bare *httptest.Server
		pprof.Do(context.Background(), pprof.Labels("side", "bare"), func(context.Context) {
			bare = httptest.NewServer(bareReadFile(b, dir))
		})
		defer bare.Close()
		bareURL = bare.URL
	}
	// The CPU time of a side's server and this process's during its
	// load: the whole process when the servers run in it.
	cpu := func(pid int) time.Duration {
		if pid == 0 {
			return processCPU()
		}
		return processCPU() + childCPU(b, pid)
	}
	serverCPU := func(pid int) time.Duration {
		if pid == 0 {
			return 0
		}
		return childCPU(b, pid)
	}
	var sess api.Session
	if code := inst.postJSON(b, "/v1/sessions", map[string]any{}, &sess); code != http.StatusCreated && code != http.StatusOK {
		b.Fatalf("create session: %d", code)
	}
	routes := []struct {
		name, path, barePath string
		body                 func(n int64) string
	}{
		{"tool_use", "/v1/tool_use", "/v1/tool_use", readFileBody},
		{"messages", "/v1/sessions/" + sess.ID + "/messages", "/messages", func(n int64) string {
			return `{"role":"assistant","content":[` + readFileBody(n) + `]}`
		}},
	}
	// Each iteration alternates the two sides several times, on
	// connections kept open across rounds, so load from elsewhere on the
	// machine falls on both alike.
	const rounds, calls = 8, 960 // calls per round and side, shared by the connections
	var seq atomic.Int64
	for _, rt := range routes {
		for _, conns := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("route=%s/conns=%d", rt.name, conns), func(b *testing.B) {
				tgClient, bareClient := benchClient(conns), benchClient(conns)
				defer tgClient.CloseIdleConnections()
				defer bareClient.CloseIdleConnections()
				var tg, base loadResult
				var tgCPU, baseCPU time.Duration
				var tgAllocs, baseAllocs uint64
				var tgServer, baseServer time.Duration // the servers' own, when they run apart
				for range b.N {
					for range rounds {
						c0, a0, s0 := cpu(tgPID), mallocs(), serverCPU(tgPID)
						tg = tg.add(loadBodies(b, tgClient, inst.url+rt.path, inst.token, conns, calls/conns, &seq, rt.body))
						c1, a1, s1 := cpu(tgPID), mallocs(), serverCPU(tgPID)
						b0, bs0 := cpu(barePID), serverCPU(barePID)
						base = base.add(loadBodies(b, bareClient, bareURL+rt.barePath, inst.token, conns, calls/conns, &seq, rt.body))
						tgCPU, baseCPU = tgCPU+c1-c0, baseCPU+cpu(barePID)-b0
						tgServer, baseServer = tgServer+s1-s0, baseServer+serverCPU(barePID)-bs0
						tgAllocs, baseAllocs = tgAllocs+a1-a0, baseAllocs+mallocs()-a1
					}
				}
				// The CPU time of the process (client and server alike) per
				// call: steadier than throughput when other processes load
				// the machine. Their ratio is what throughput would be where
				// the CPU is the limit.
				b.ReportMetric(float64(tgCPU.Microseconds())/float64(tg.n), "toolgate_cpu_µs/call")
				b.ReportMetric(float64(baseCPU.Microseconds())/float64(base.n), "bare_cpu_µs/call")
				b.ReportMetric((float64(baseCPU)/float64(base.n))/(float64(tgCPU)/float64(tg.n)), "cpu_ratio")
				// Heap allocations per call, the client's included on both
				// sides: a count no other load moves.
				if tgPID == 0 {
					b.ReportMetric(float64(tgAllocs)/float64(tg.n), "toolgate_allocs/call")
					b.ReportMetric(float64(baseAllocs)/float64(base.n), "bare_allocs/call")
				} else {
					// The servers' own CPU per call, the load generator's left out.
					b.ReportMetric(float64(tgServer.Microseconds())/float64(tg.n), "toolgate_server_cpu_µs/call")
					b.ReportMetric(float64(baseServer.Microseconds())/float64(base.n), "bare_server_cpu_µs/call")
				}
				b.ReportMetric(tg.rps(), "toolgate_req/s")
				b.ReportMetric(base.rps(), "bare_req/s")
				b.ReportMetric(tg.rps()/base.rps(), "throughput_ratio")
				b.ReportMetric(tg.p99().Seconds()*1000, "toolgate_p99_ms")
				b.ReportMetric(base.p99().Seconds()*1000, "bare_p99_ms")
			})
		}
	}
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// mallocs is the number of heap allocations the process has made.
func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// readFileBody is a read_file tool_use of the 1 KB file with the id toolu_n.
func readFileBody(n int64) string {
	return fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"read_file","input":{"path":"one_kb.txt"}}`, n)
}

// bareReadFile is the baseline: decode the block (or the one-block
// message), read the file, answer with the same response shape, nothing
// else.
func bareReadFile(b testing.TB, dir string) http.Handler {
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	read := func(use api.ToolUse) (api.ToolResult, api.CallRecord, error) {
		var in struct{ Path string }
		_ = json.Unmarshal(use.Input, &in)
		data, err := root.ReadFile(in.Path)
		if err != nil {
			return api.ToolResult{}, api.CallRecord{}, err
		}
		return api.NewToolResult(use.ID, string(data), false),
			api.CallRecord{ToolUseID: use.ID, Name: use.Name, State: api.StateDone, Status: api.StatusSucceeded}, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/tool_use", func(w http.ResponseWriter, r *http.Request) {
		var use api.ToolUse
		if err := json.NewDecoder(r.Body).Decode(&use); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		res, rec, err := read(use)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.ToolUseResponse{Result: res, Call: rec})
	})
	mux.HandleFunc("/messages", func(w http.ResponseWriter, r *http.Request) {
		var msg api.AssistantMessage
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil || len(msg.Content) != 1 {
			http.Error(w, fmt.Sprint("bad message: ", err), 400)
			return
		}
		var use api.ToolUse
		if err := json.Unmarshal(msg.Content[0], &use); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		res, rec, err := read(use)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.MessageResponse{MessageID: "msg_1",
			Message: api.UserMessage{Role: "user", Content: []api.ToolResult{res}}, Calls: []api.CallRecord{rec}})
	})
	return mux
}

type loadResult struct {
	n         int
	elapsed   time.Duration
	latencies []time.Duration
}

func (l loadResult) add(o loadResult) loadResult {
	return loadResult{n: l.n + o.n, elapsed: l.elapsed + o.elapsed, latencies: append(l.latencies, o.latencies...)}
}

func (l loadResult) rps() float64 { return float64(l.n) / l.elapsed.Seconds() }

func (l loadResult) p99() time.Duration {
	s := slices.Clone(l.latencies)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// benchClient keeps up to conns connections open between loads.
func benchClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
}

// loadBodies sends clients x perClient requests, the body of each built
// from a fresh call number (a repeated tool_use id would be answered from
// the session's record).
func loadBodies(b *testing.B, client *http.Client, url, token string, clients, perClient int, seq *atomic.Int64, body func(n int64) string) loadResult {
	return loadEach(b, client, []string{url}, token, clients, perClient, seq, body)
}

// loadEach is loadBodies with client c posting to urls[c%len(urls)].
func loadEach(b *testing.B, client *http.Client, urls []string, token string, clients, perClient int, seq *atomic.Int64, body func(n int64) string) loadResult {
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	start := time.Now()
	defer pprof.SetGoroutineLabels(context.Background())
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("side", "client")))
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perClient {
				req, _ := http.NewRequest("POST", urls[c%len(urls)], bytes.NewReader([]byte(body(seq.Add(1)))))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	res := loadResult{elapsed: time.Since(start)}
	for _, l := range lat {
		res.n += len(l)
		res.latencies = append(res.latencies, l...)
	}
	return res
}

// benchServerArgs are the flags of the toolgate a benchmark measures:
// its defaults (the SQLite store, in a scratch directory, and the request
// log at info level), or with TOOLGATE_BENCH_LEAN set the memory store
// and warnings only, to compare the two.
func benchServerArgs(b testing.TB) []string {
	if os.Getenv("TOOLGATE_BENCH_LEAN") != "" {
		return []string{"--store", "memory", "--log-level", "warn"}
	}
	cfg := filepath.Join(b.TempDir(), "toolgate.json")
	body, _ := json.Marshal(map[string]any{"store": map[string]any{"path": filepath.Join(b.TempDir(), "state.db")}})
	if err := os.WriteFile(cfg, body, 0o600); err != nil {
		b.Fatal(err)
	}
	return []string{"--store", "sqlite", "--config", cfg}
}

// benchLogArgs keeps toolgate's per-request and per-call log lines on, at
// their default level, when TOOLGATE_BENCH_LOGS is set; otherwise only
// warnings are logged, as a quiet deployment would run.
func benchLogArgs() []string {
	if os.Getenv("TOOLGATE_BENCH_LOGS") != "" {
		return nil
	}
	return []string{"--log-level", "warn"}
}
