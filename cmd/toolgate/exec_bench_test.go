package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// BenchmarkExecuteTrueVsBash runs execute_command of `true` through
// toolgate (a fresh tool_use id per call, sandbox off, calls allowed) and,
// alternating round by round in the same run, spawns `bash -c true`
// directly from as many goroutines, and reports both rates and toolgate's
// ratio. Each caller posts one-block messages to a session of its own: a
// session runs commands that may write one at a time, as the model emitted
// them, so callers sharing one would measure that order, not the spawn.
// It also reports the CPU time per call of each side, the commands' own
// included, and their ratio (cpu_ratio). A third way in each round posts
// the same messages to a bare net/http handler that decodes the message,
// spawns `bash -c true` and encodes a small answer (hop_ratio,
// hop_cpu_ratio): the ceiling of any HTTP server running the command on
// this machine.
//
//	go test -run '^$' -bench ExecuteTrueVsBash -benchtime 3x ./cmd/toolgate/
func BenchmarkExecuteTrueVsBash(b *testing.B) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("needs bash")
	}
	dir := b.TempDir()
	cfg := filepath.Join(b.TempDir(), "toolgate.json")
	if err := os.WriteFile(cfg, []byte(`{"policy": {"allow_all": true}, "sandbox": {"mode": "off"}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	inst := start(b, dir, append(benchLogArgs(), "--config", cfg)...)
	body := func(n int64) string {
		return fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_x%d","name":"execute_command","input":{"command":"true","requires_approval":false}}]}`, n)
	}
	var urls []string
	for range 8 {
		var s api.Session
		if code := inst.postJSON(b, "/v1/sessions", map[string]any{}, &s); code != http.StatusCreated {
			b.Fatalf("create session: %d", code)
		}
		urls = append(urls, inst.url+"/v1/sessions/"+s.ID+"/messages")
	}
	spawn := func() error {
		cmd := exec.Command(bash, "-c", "true")
		cmd.Dir = dir
		return cmd.Run()
	}
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg api.AssistantMessage
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil || len(msg.Content) != 1 {
			http.Error(w, fmt.Sprint("bad message: ", err), http.StatusBadRequest)
			return
		}
		var use api.ToolUse
		if err := json.Unmarshal(msg.Content[0], &use); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := spawn(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.ToolUseResponse{Result: api.NewToolResult(use.ID, "Command executed successfully (exit code 0).", false),
			Call: api.CallRecord{ToolUseID: use.ID, Name: use.Name, State: api.StateDone, Status: api.StatusSucceeded}})
	}))
	defer hop.Close()
	hopURLs := []string{hop.URL}
	var first api.MessageResponse
	if code := inst.postJSON(b, urls[0][len(inst.url):], jsonRaw(body(0)), &first); code != http.StatusOK ||
		len(first.Calls) != 1 || first.Calls[0].Status != api.StatusSucceeded {
		b.Fatalf("execute_command of true: %d %+v", code, first)
	}
	// Short turns in a rotating order, so that load from elsewhere on the
	// machine, which changes by the second, falls on every way alike.
	const rounds, calls = 12, 32
	var seq atomic.Int64
	for _, callers := range []int{1, 8} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			client := benchClient(callers)
			defer client.CloseIdleConnections()
			var got [3]loadResult
			var cpu [3]time.Duration
			ways := [3]func() loadResult{
				func() loadResult {
					return loadEach(b, client, urls[:callers], inst.token, callers, max(calls/callers, 1), &seq, body)
				},
				func() loadResult { return callsFrom(b, callers, max(calls/callers, 1), spawn) },
				func() loadResult {
					return loadEach(b, client, hopURLs, inst.token, callers, max(calls/callers, 1), &seq, body)
				},
			}
			for range b.N {
				for r := range rounds {
					for k := range ways {
						w := (r + k) % len(ways)
						c0 := processAndChildrenCPU()
						got[w] = got[w].add(ways[w]())
						cpu[w] += processAndChildrenCPU() - c0
					}
				}
			}
			tg, base, bare := got[0], got[1], got[2]
			tgCPU, baseCPU, bareCPU := cpu[0], cpu[1], cpu[2]
			b.ReportMetric(tg.rps(), "toolgate_calls/s")
			b.ReportMetric(base.rps(), "bash_spawns/s")
			b.ReportMetric(tg.rps()/base.rps(), "ratio")
			// CPU time per call, the commands' own included, which other
			// load on the machine disturbs less than the rates.
			b.ReportMetric(float64(tgCPU.Microseconds())/float64(tg.n), "toolgate_cpu_µs/call")
			b.ReportMetric(float64(baseCPU.Microseconds())/float64(base.n), "bash_cpu_µs/call")
			b.ReportMetric((float64(baseCPU)/float64(base.n))/(float64(tgCPU)/float64(tg.n)), "cpu_ratio")
			// The ceiling: a bare HTTP hop in front of the same spawn.
			b.ReportMetric(bare.rps()/base.rps(), "hop_ratio")
			b.ReportMetric((float64(baseCPU)/float64(base.n))/(float64(bareCPU)/float64(bare.n)), "hop_cpu_ratio")
		})
	}
}

// processAndChildrenCPU is the user and system CPU time of the process
// and of its children that have been waited for.
func processAndChildrenCPU() time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
