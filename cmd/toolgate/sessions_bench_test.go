package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// BenchmarkManySessionsMemory measures what sessions cost a toolgate under
// load. First the baseline: 6 s of read_file load (1 KB, 16 connections,
// a fresh tool_use id per call) on a toolgate with only its default
// session. Then 1,000 sessions are created with one call each and the same
// load runs again. It reports the heap each session holds and the peak
// RSS of the process (toolgate and the load together, VmHWM reset before
// each phase) in both phases, and their ratio. toolgate runs with its
// default store, SQLite.
//
//	go test -run '^$' -bench ManySessionsMemory -benchtime 1x ./cmd/toolgate/
func BenchmarkManySessionsMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		b.Skip("needs Linux's /proc/self/clear_refs to reset the peak RSS")
	}
	const sessions = 1000
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(strings.Repeat("0123456789abcde\n", 64)), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg := filepath.Join(b.TempDir(), "toolgate.json")
	// The default SQLite store; the log at warn level, since this
	// process keeps its log in memory (a server's goes to a file).
	body := fmt.Sprintf(`{"sessions": {"max": %d}, "store": {"path": %q}}`, sessions+10, filepath.Join(b.TempDir(), "state.db"))
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		b.Fatal(err)
	}
	inst := start(b, dir, append(benchLogArgs(), "--config", cfg, "--store", "sqlite")...)
	var seq atomic.Int64
	for range b.N {
		basePeak, baseCalls := peakRSSDuring(b, func() int {
			return loadFor(b, inst.url+"/v1/tool_use", inst.token, 16, 6*time.Second, &seq)
		})
		heapBefore := heapInUse()
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
		perSession := float64(heapInUse()-heapBefore) / sessions
		peak, calls := peakRSSDuring(b, func() int {
			return loadFor(b, inst.url+"/v1/tool_use", inst.token, 16, 6*time.Second, &seq)
		})
		b.ReportMetric(perSession/1024, "heap_KB/session")
		b.ReportMetric(float64(basePeak)/(1<<20), "baseline_peak_RSS_MB")
		b.ReportMetric(float64(peak)/(1<<20), "sessions_peak_RSS_MB")
		b.ReportMetric(float64(peak)/float64(basePeak), "rss_ratio")
		b.ReportMetric(float64(calls)/6, "sessions_req/s")
		b.ReportMetric(float64(baseCalls)/6, "baseline_req/s")
	}
}

// jsonRaw is a body instance.post sends as it is.
type jsonRaw string

func (j jsonRaw) MarshalJSON() ([]byte, error) { return []byte(j), nil }

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// peakRSSDuring resets the process's peak RSS, runs f and returns the new
// peak (bytes) with f's result.
func peakRSSDuring(b *testing.B, f func() int) (uint64, int) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS: %v", err)
	}
	n := f()
	st, err := os.Open("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	sc := bufio.NewScanner(st)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10, n
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0, 0
}

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
