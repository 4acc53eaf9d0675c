package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/testbuild"
)

// BenchmarkManySessionsMemory measures what sessions cost a toolgate under
// load. toolgate runs as users run it: the toolgate binary (go build) in
// its own process, with its defaults (the SQLite store, the request log at
// info level to a file, the sandbox as it comes; only sessions.max is
// raised to hold the sessions). TOOLGATE_BENCH_LEAN=1 runs it with the
// memory store and warnings only, to compare. First the baseline: 6 s of
// read_file load (1 KB, 16 connections, a fresh tool_use id per call)
// with only the default session. Then 1,000 sessions are created with one
// call each and the same load runs again. It reports toolgate's own peak
// RSS in both phases (VmHWM of its process, reset before each; the load
// generator is this process and left out) and their ratio; from the
// collector's trace (GODEBUG=gctrace=1), the mean live heap under each
// load, its difference per session and the largest heap goal.
//
//	go test -run '^$' -bench ManySessionsMemory -benchtime 1x ./cmd/toolgate/
//
// TOOLGATE_BENCH_HEAPPROFILE=<file> runs toolgate as this test binary
// instead (it has the hook) and writes its heap profiles after the
// baseline (<file>.serve.1), after the sessions (.2) and after the second
// load (.3).
func BenchmarkManySessionsMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		b.Skip("needs Linux's /proc/PID/clear_refs to reset the peak RSS")
	}
	const sessions = 1000
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(strings.Repeat("0123456789abcde\n", 64)), 0o644); err != nil {
		b.Fatal(err)
	}
	args := manySessionsArgs(b, dir, sessions+10)
	profiles := os.Getenv("TOOLGATE_BENCH_HEAPPROFILE") != ""
	var tg *benchServer
	if profiles {
		b.Setenv("GODEBUG", "gctrace=1")
		tg = startChild(b, args...)
	} else {
		tg = startServer(b, "toolgate", testbuild.Binary(b, testbuild.Toolgate), []string{"GODEBUG=gctrace=1"}, args...)
	}
	inst := &instance{url: tg.url, token: "bench-token"}
	var seq atomic.Int64
	// phase runs the load and returns toolgate's peak RSS, the calls
	// answered and the collections it made.
	phase := func() (peak uint64, calls int, gc gcCycles) {
		from := tg.logSize(b)
		peak, calls = tg.peakRSSDuring(b, func() int {
			return loadFor(b, inst.url+"/v1/tool_use", inst.token, 16, 6*time.Second, &seq)
		})
		if profiles {
			tg.heap(b)
		}
		return peak, calls, tg.collections(b, from, tg.logSize(b))
	}
	for range b.N {
		basePeak, baseCalls, baseGC := phase()
		for i := range sessions {
			var s api.Session
			if code := inst.postJSON(b, "/v1/sessions", map[string]any{}, &s); code != http.StatusCreated && code != http.StatusOK {
				b.Fatalf("session %d: status %d", i, code)
			}
			body := `{"role":"assistant","content":[` + readFileBody(seq.Add(1)) + `]}`
			resp := inst.post(b, "/v1/sessions/"+s.ID+"/messages", jsonRaw(body))
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("call in session %d: status %d", i, resp.StatusCode)
			}
		}
		if profiles {
			tg.heap(b)
		}
		peak, calls, gc := phase()
		if baseGC.n == 0 || gc.n == 0 {
			b.Fatalf("no collections in toolgate's log (%d, %d)", baseGC.n, gc.n)
		}
		b.ReportMetric(float64(basePeak)/(1<<20), "baseline_peak_RSS_MB")
		b.ReportMetric(float64(peak)/(1<<20), "sessions_peak_RSS_MB")
		b.ReportMetric(float64(peak)/float64(basePeak), "rss_ratio")
		b.ReportMetric(baseGC.meanLive(), "baseline_live_heap_MB")
		b.ReportMetric(gc.meanLive(), "sessions_live_heap_MB")
		b.ReportMetric((gc.meanLive()-baseGC.meanLive())*1024/sessions, "heap_KB/session")
		b.ReportMetric(gc.maxGoal, "sessions_heap_goal_MB")
		b.ReportMetric(float64(calls)/6, "sessions_req/s")
		b.ReportMetric(float64(baseCalls)/6, "baseline_req/s")
	}
}

// manySessionsArgs are toolgate's flags for BenchmarkManySessionsMemory:
// its defaults, with room for max sessions and the state database in a
// scratch directory; or, with TOOLGATE_BENCH_LEAN=1 (benchLean), the
// memory store and warnings only.
func manySessionsArgs(b *testing.B, dir string, max int) []string {
	cfg := filepath.Join(b.TempDir(), "toolgate.json")
	body := fmt.Sprintf(`{"sessions": {"max": %d}, "store": {"path": %q}}`, max, filepath.Join(b.TempDir(), "state.db"))
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		b.Fatal(err)
	}
	args := []string{"serve", "--addr", "127.0.0.1:0", "--workspace", dir, "--config", cfg}
	if benchLean(b, false) {
		args = append(args, "--store", "memory", "--log-level", "warn")
	}
	return args
}

// jsonRaw is a body instance.post sends as it is.
type jsonRaw string

func (j jsonRaw) MarshalJSON() ([]byte, error) { return []byte(j), nil }

// loadFor posts read_file calls, each with a fresh id, from conns
// connections until d has passed, and returns how many were answered.
func loadFor(b *testing.B, url, token string, conns int, d time.Duration, seq *atomic.Int64) int {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	defer client.CloseIdleConnections()
	var n atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(readFileBody(seq.Add(1)))))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return int(n.Load())
}
