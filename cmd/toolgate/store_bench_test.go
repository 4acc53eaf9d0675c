package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// BenchmarkStoreVsMemory runs the dispatch benchmark's load (read_file of
// 1 KB via POST /v1/tool_use, 8 clients, a fresh tool_use id per call)
// against two real toolgates side by side, one on the SQLite store and
// one on the memory store, and reports the throughput ratio. The write
// case posts write_to_file calls, each recorded on disk before it runs
// (one fsync'd commit, shared by the calls that start together) and
// committed, without an fsync, before it is answered.
//
//	go test -run '^$' -bench StoreVsMemory -benchtime 3x ./cmd/toolgate/
func BenchmarkStoreVsMemory(b *testing.B) {
	cases := []struct {
		name string
		body func(n int64) string
	}{
		{"read", func(n int64) string {
			return fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"read_file","input":{"path":"one_kb.txt"}}`, n)
		}},
		{"write", func(n int64) string {
			return fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"write_to_file","input":{"path":"out/%d.txt","content":"x"}}`, n, n%64)
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			start := func(mode string) *instance {
				dir := b.TempDir()
				content := strings.Repeat("0123456789abcde\n", 64)
				if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(content), 0o644); err != nil {
					b.Fatal(err)
				}
				cfg := filepath.Join(b.TempDir(), "toolgate.json")
				body := fmt.Sprintf(`{"store": {"path": %q}, "policy": {"allow_all": true}}`, filepath.Join(b.TempDir(), "state.db"))
				if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
					b.Fatal(err)
				}
				return start(b, dir, append(benchLogArgs(), "--config", cfg, "--store", mode)...)
			}
			sqlite, memory := start("sqlite"), start("memory")
			const clients, perClient = 8, 400
			var seq atomic.Int64
			sqliteClient, memoryClient := benchClient(clients), benchClient(clients)
			defer sqliteClient.CloseIdleConnections()
			defer memoryClient.CloseIdleConnections()
			var withStore, base loadResult
			for range b.N {
				withStore = withStore.add(loadBodies(b, sqliteClient, sqlite.url+"/v1/tool_use", sqlite.token, clients, perClient, &seq, tc.body))
				base = base.add(loadBodies(b, memoryClient, memory.url+"/v1/tool_use", memory.token, clients, perClient, &seq, tc.body))
			}
			b.ReportMetric(withStore.rps(), "sqlite_req/s")
			b.ReportMetric(base.rps(), "memory_req/s")
			b.ReportMetric(withStore.rps()/base.rps(), "throughput_ratio")
			b.ReportMetric(withStore.p99().Seconds()*1000, "sqlite_p99_ms")
			b.ReportMetric(base.p99().Seconds()*1000, "memory_p99_ms")
		})
	}
}
