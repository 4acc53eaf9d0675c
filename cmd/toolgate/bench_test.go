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
	"strconv"
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
// request to toolgate run lean and to a bare net/http handler that decodes
// the block, reads the file and encodes the same response shape. toolgate
// runs with its defaults: the SQLite store (in a scratch directory), the
// request log at info level as JSON to a file, the sandbox as the machine
// allows it (its mode is logged); lean is the memory store and warnings
// only. Every call has a fresh tool_use id (a repeated id is answered from
// the session's record without running the tool). Two routes: POST
// /v1/tool_use, and POST /v1/sessions/{sid}/messages with a one-block
// assistant message (the bare handler then decodes the message and
// answers a user message). It reports each side's throughput and p99
// latency and the throughput ratios to the bare handler (throughput_ratio
// for the defaults, lean_throughput_ratio) at 1, 16 and 64 connections,
// and the CPU time per call of each side with its ratio (cpu_ratio,
// lean_cpu_ratio), which other load on the machine disturbs less, and the
// heap allocations per call of each side, which it does not disturb. The
// CPU profile (-cpuprofile) labels samples side=toolgate, lean, bare or
// client: go tool pprof -tagfocus side=toolgate.
//
// The servers run in this process unless TOOLGATE_BENCH_SEPARATE is set:
// then each runs as its own process (this test binary started again), as
// users run toolgate, and a process-wide setting such as the collector's
// touches one side only. A side's CPU time is then its server's, read from
// /proc, plus this process's, the load generator's; allocations are not
// counted. TOOLGATE_BENCH_CPUPROFILE=<file> then profiles each server
// (<file>.serve, <file>.bare; the lean toolgate's profile overwrites the
// defaults' unless it is left out with TOOLGATE_BENCH_LEAN=0).
// TOOLGATE_BENCH_BASELINE=<toolgate binary> adds another build (main's,
// say, with toolgate-sandbox beside it) run with the same defaults as a
// side of its own, baseline_throughput_ratio and baseline_cpu_ratio
// beside the others; the servers then run apart.
//
//	go test -run '^$' -bench ToolUseVsBare -benchtime 3x ./cmd/toolgate/
//	TOOLGATE_BENCH_SEPARATE=1 go test -run '^$' -bench ToolUseVsBare -benchtime 3x ./cmd/toolgate/
func BenchmarkToolUseVsBare(b *testing.B) {
	dir := b.TempDir()
	content := strings.Repeat("0123456789abcde\n", 64) // 1 KiB
	if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	sides := startSides(b, dir)
	b.Logf("toolgate defaults: %s", sandboxMode(b, sides[0]))
	// Each toolgate gets a session of its own for the messages route.
	for _, sd := range sides {
		sd.session = "unused"
		if sd.name == "bare" {
			continue
		}
		var sess api.Session
		if code := sd.postJSON(b, "/v1/sessions", map[string]any{}, &sess); code != http.StatusCreated && code != http.StatusOK {
			b.Fatalf("%s: create session: %d", sd.name, code)
		}
		sd.session = sess.ID
	}
	routes := []struct {
		name string
		path func(sd *benchSide) string
		body func(n int64) string
	}{
		{"tool_use", func(*benchSide) string { return "/v1/tool_use" }, readFileBody},
		{"messages", func(sd *benchSide) string {
			if sd.name == "bare" {
				return "/messages"
			}
			return "/v1/sessions/" + sd.session + "/messages"
		}, func(n int64) string {
			return `{"role":"assistant","content":[` + readFileBody(n) + `]}`
		}},
	}
	// Each iteration alternates the sides several times, on connections
	// kept open across rounds, so load from elsewhere on the machine falls
	// on all alike.
	const rounds, calls = 8, 960 // calls per round and side, shared by the connections
	var seq atomic.Int64
	for _, rt := range routes {
		for _, conns := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("route=%s/conns=%d", rt.name, conns), func(b *testing.B) {
				ms := make([]sideLoad, len(sides))
				for i, sd := range sides {
					ms[i] = sideLoad{side: sd, client: benchClient(conns)}
					defer ms[i].client.CloseIdleConnections()
				}
				for range b.N {
					for range rounds {
						for i := range ms {
							m := &ms[i]
							m.measure(b, func() loadResult {
								return loadBodies(b, m.client, m.side.url+rt.path(m.side), m.side.token, conns, calls/conns, &seq, rt.body)
							})
						}
					}
				}
				reportSides(b, ms)
			})
		}
	}
}

// benchSide is one server BenchmarkToolUseVsBare loads.
type benchSide struct {
	*instance
	name    string // toolgate (its defaults), lean or bare
	pid     int    // its process when the servers run apart, else 0
	session string // the session of the messages route
}

// startSides starts toolgate with its defaults, toolgate lean (unless
// TOOLGATE_BENCH_LEAN=0, see benchLean) and the bare handler, in this process or, with
// TOOLGATE_BENCH_SEPARATE, each as its own.
func startSides(b *testing.B, dir string) []*benchSide {
	kinds := []struct {
		name string
		args []string
	}{{"toolgate", benchServerArgs(b)}, {"lean", []string{"--store", "memory", "--log-level", "warn"}}, {"bare", nil}}
	if !benchLean(b, true) {
		kinds = slices.Delete(kinds, 1, 2)
	}
	baseline := os.Getenv("TOOLGATE_BENCH_BASELINE")
	if baseline != "" {
		kinds = slices.Insert(kinds, 1, struct {
			name string
			args []string
		}{"baseline", benchServerArgs(b)})
	}
	separate := os.Getenv("TOOLGATE_BENCH_SEPARATE") != "" || baseline != ""
	serve := func(args []string) []string {
		return append([]string{"serve", "--addr", "127.0.0.1:0", "--workspace", dir, "--log-format", "json"}, args...)
	}
	var sides []*benchSide
	for _, k := range kinds {
		sd := &benchSide{name: k.name, instance: &instance{token: "bench-token"}}
		switch {
		case k.name == "baseline":
			c := startBaseline(b, baseline, serve(k.args)...)
			sd.url, sd.pid = c.url, c.pid
		case separate && k.name == "bare":
			c := startChild(b, "bare", dir)
			sd.url, sd.pid = c.url, c.pid
		case separate:
			c := startChild(b, serve(k.args)...)
			sd.url, sd.pid = c.url, c.pid
		default:
			// Profile labels (side=toolgate, lean, bare, client) tell
			// the sides apart in a CPU profile: goroutines inherit the
			// labels of the one that started them.
			pprof.Do(context.Background(), pprof.Labels("side", k.name), func(context.Context) {
				if k.name == "bare" {
					bare := httptest.NewServer(bareReadFile(b, dir))
					b.Cleanup(bare.Close)
					sd.url = bare.URL
					return
				}
				logFile, err := os.Create(filepath.Join(b.TempDir(), "toolgate.log"))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { logFile.Close() })
				sd.instance = startLogging(b, dir, logFile, k.args...)
			})
		}
		sides = append(sides, sd)
	}
	return sides
}

// startBaseline starts another build of toolgate (TOOLGATE_BENCH_BASELINE)
// as BenchmarkToolUseVsBare's baseline side, its log going to a file as
// startChild's do, and waits for it to listen.
func startBaseline(b *testing.B, bin string, args ...string) *benchServer {
	return startServer(b, bin, bin, nil, args...)
}

// sandboxMode says how toolgate's sandbox runs, from its /healthz.
func sandboxMode(b *testing.B, sd *benchSide) string {
	resp, err := testHTTP.Get(sd.url + "/healthz")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var health struct {
		Sandbox struct {
			Mode   string `json:"mode"`
			Helper string `json:"helper"`
		} `json:"sandbox"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&health); err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("sandbox mode %q (helper %q)", health.Sandbox.Mode, health.Sandbox.Helper)
}

// sideLoad sums a side's loads and what they cost.
type sideLoad struct {
	side   *benchSide
	client *http.Client
	load   loadResult
	// cpu is the process's CPU time during the side's loads (the
	// server's added when it runs apart); server the server's alone.
	cpu, server time.Duration
	allocs      uint64
}

func (m *sideLoad) measure(b *testing.B, load func() loadResult) {
	c0, a0, s0 := benchCPU(b, m.side.pid), mallocs(), benchServerCPU(b, m.side.pid)
	m.load = m.load.add(load())
	m.cpu += benchCPU(b, m.side.pid) - c0
	m.server += benchServerCPU(b, m.side.pid) - s0
	m.allocs += mallocs() - a0
}

func (m *sideLoad) perCall(d time.Duration) float64 {
	return float64(d.Microseconds()) / float64(m.load.n)
}

// reportSides reports each side's figures, prefixed by its name, and the
// ratios of the toolgate sides to the bare handler, the last side.
func reportSides(b *testing.B, ms []sideLoad) {
	bare := ms[len(ms)-1]
	for _, m := range ms {
		name := m.side.name
		// The CPU time of the process (client and server alike) per
		// call: steadier than throughput when other processes load the
		// machine. Its ratio is what throughput would be where the CPU
		// is the limit.
		b.ReportMetric(m.perCall(m.cpu), name+"_cpu_µs/call")
		if m.side.pid == 0 {
			// Heap allocations per call, the client's included on every
			// side: a count no other load moves.
			b.ReportMetric(float64(m.allocs)/float64(m.load.n), name+"_allocs/call")
		} else {
			// The server's own CPU per call, the load generator's left out.
			b.ReportMetric(m.perCall(m.server), name+"_server_cpu_µs/call")
		}
		b.ReportMetric(m.load.rps(), name+"_req/s")
		b.ReportMetric(m.load.p99().Seconds()*1000, name+"_p99_ms")
		if m.side != bare.side {
			prefix := ""
			if name != "toolgate" {
				prefix = name + "_"
			}
			b.ReportMetric(m.load.rps()/bare.load.rps(), prefix+"throughput_ratio")
			b.ReportMetric(bare.perCall(bare.cpu)/m.perCall(m.cpu), prefix+"cpu_ratio")
		}
	}
}

// benchCPU is the CPU time of this process and, when it runs apart, of
// the server pid.
func benchCPU(b *testing.B, pid int) time.Duration {
	return processCPU() + benchServerCPU(b, pid)
}

// benchServerCPU is the CPU time of the server pid when it runs apart.
func benchServerCPU(b *testing.B, pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	return childCPU(b, pid)
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

// benchServerArgs are the flags of a toolgate a benchmark measures with
// its defaults: the SQLite store, in a scratch directory, and the request
// log at info level.
func benchServerArgs(b testing.TB) []string {
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

// benchLean is TOOLGATE_BENCH_LEAN, one switch for every benchmark that
// can measure toolgate lean (the memory store, warnings only): 1 (or
// true) measures it, 0 (or false) does not, unset leaves the benchmark's
// own choice, def. BenchmarkToolUseVsBare measures lean beside the
// defaults unless it is 0; BenchmarkManySessionsMemory measures lean
// instead of the defaults when it is 1. Any other value fails the
// benchmark rather than being read one way or the other.
func benchLean(b testing.TB, def bool) bool {
	v, ok := os.LookupEnv("TOOLGATE_BENCH_LEAN")
	if !ok || v == "" {
		return def
	}
	lean, err := strconv.ParseBool(v)
	if err != nil {
		b.Fatalf("TOOLGATE_BENCH_LEAN=%q: want 1 (measure toolgate lean) or 0 (do not)", v)
	}
	return lean
}
