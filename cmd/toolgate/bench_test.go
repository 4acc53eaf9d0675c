package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// BenchmarkToolUseVsBare posts read_file of a 1 KB file to /v1/tool_use of
// a real toolgate over loopback and, in the same run, the same request to
// a bare net/http handler that reads the file and writes the same JSON.
// It reports both throughputs, both p99 latencies and the ratio.
//
//	go test -run '^$' -bench ToolUseVsBare -benchtime 3x ./cmd/toolgate/
func BenchmarkToolUseVsBare(b *testing.B) {
	dir := b.TempDir()
	content := strings.Repeat("0123456789abcde\n", 64) // 1 KiB
	if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	inst := start(b, dir, benchLogArgs()...)
	bare := httptest.NewServer(bareReadFile(b, dir))
	defer bare.Close()

	const clients, perClient = 8, 400
	var seq atomic.Int64
	var tg, base loadResult
	for range b.N {
		tg = tg.add(load(b, inst.url+"/v1/tool_use", inst.token, clients, perClient, &seq))
		base = base.add(load(b, bare.URL+"/v1/tool_use", inst.token, clients, perClient, &seq))
	}
	b.ReportMetric(tg.rps(), "toolgate_req/s")
	b.ReportMetric(base.rps(), "bare_req/s")
	b.ReportMetric(tg.rps()/base.rps(), "throughput_ratio")
	b.ReportMetric(tg.p99().Seconds()*1000, "toolgate_p99_ms")
	b.ReportMetric(base.p99().Seconds()*1000, "bare_p99_ms")
}

// bareReadFile is the baseline: decode the block, read the file, answer
// with the same response shape, nothing else.
func bareReadFile(b *testing.B, dir string) http.Handler {
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var use api.ToolUse
		if err := json.NewDecoder(r.Body).Decode(&use); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var in struct{ Path string }
		_ = json.Unmarshal(use.Input, &in)
		data, err := root.ReadFile(in.Path)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		resp := api.ToolUseResponse{
			Result: api.NewToolResult(use.ID, string(data), false),
			Call:   api.CallRecord{ToolUseID: use.ID, Name: use.Name, State: api.StateDone, Status: api.StatusSucceeded},
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	})
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

// load sends clients x perClient requests, each a fresh tool_use id (a
// repeated id would be answered from the session's record).
func load(b *testing.B, url, token string, clients, perClient int, seq *atomic.Int64) loadResult {
	return loadBodies(b, url, token, clients, perClient, seq, func(n int64) string {
		return fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"read_file","input":{"path":"one_kb.txt"}}`, n)
	})
}

// loadBodies is load with the request body built from each call's number.
func loadBodies(b *testing.B, url, token string, clients, perClient int, seq *atomic.Int64, body func(n int64) string) loadResult {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perClient {
				req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(body(seq.Add(1)))))
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

// benchLogArgs keeps toolgate's per-request and per-call log lines on, at
// their default level, when TOOLGATE_BENCH_LOGS is set; otherwise only
// warnings are logged, as a quiet deployment would run.
func benchLogArgs() []string {
	if os.Getenv("TOOLGATE_BENCH_LOGS") != "" {
		return nil
	}
	return []string{"--log-level", "warn"}
}
