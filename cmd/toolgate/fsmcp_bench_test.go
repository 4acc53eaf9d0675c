package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fsMCPPackage is the reference filesystem MCP server the read benchmark
// runs against, pinned.
const fsMCPPackage = "@modelcontextprotocol/server-filesystem@2026.8.31"

// BenchmarkReadVsFilesystemMCP reads a 1 KB file through toolgate (POST
// /v1/tool_use, read_file, a fresh tool_use id per call, one keep-alive
// connection per caller) and, alternating round by round in the same run,
// through the reference MCP filesystem server (Node, over stdio, its
// read_text_file tool) called with go-sdk's client from the same number of
// callers sharing the one session, as an MCP host does. It reports both
// rates and toolgate's ratio, and, as a third way in each round, the
// ratio of ToolUseVsBare's bare net/http handler (decode, read, encode)
// against the reference server (bare_ratio): the ceiling of any HTTP
// server on the machine. test.sh installs the reference server; by hand
// it is installed with npm into a scratch directory:
//
//	mkdir -p /tmp/toolgate-mcp-fs && (cd /tmp/toolgate-mcp-fs && npm install --no-save @modelcontextprotocol/server-filesystem@2026.8.31)
//	go test -run '^$' -bench ReadVsFilesystemMCP -benchtime 2x -count 3 ./cmd/toolgate/
//
// TOOLGATE_MCP_FS_DIR names another scratch directory.
func BenchmarkReadVsFilesystemMCP(b *testing.B) {
	scratch := os.Getenv("TOOLGATE_MCP_FS_DIR")
	if scratch == "" {
		scratch = filepath.Join(os.TempDir(), "toolgate-mcp-fs")
	}
	script := filepath.Join(scratch, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(script); serr != nil || err != nil {
		b.Skipf("needs node and %s in %s (npm install --no-save %s there)", fsMCPPackage, scratch, fsMCPPackage)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(strings.Repeat("0123456789abcde\n", 64)), 0o644); err != nil {
		b.Fatal(err)
	}
	inst := start(b, dir, benchLogArgs()...)
	bare := httptest.NewServer(bareReadFile(b, dir))
	defer bare.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	fs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(node, script, dir)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer fs.Close()
	file := filepath.Join(dir, "one_kb.txt")
	readMCP := func() error {
		res, err := fs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": file}})
		if err == nil && (res.IsError || len(res.Content) == 0) {
			err = fmt.Errorf("read_text_file failed: %+v", res.Content)
		}
		return err
	}
	if err := readMCP(); err != nil {
		b.Fatal(err)
	}
	const rounds, calls = 4, 960
	var seq atomic.Int64
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			tgClient := benchClient(callers)
			defer tgClient.CloseIdleConnections()
			var tg, ref, floor loadResult
			for range b.N {
				for range rounds {
					tg = tg.add(loadBodies(b, tgClient, inst.url+"/v1/tool_use", inst.token, callers, calls/callers, &seq, readFileBody))
					ref = ref.add(callsFrom(b, callers, calls/callers, readMCP))
					floor = floor.add(loadBodies(b, tgClient, bare.URL+"/v1/tool_use", inst.token, callers, calls/callers, &seq, readFileBody))
				}
			}
			b.ReportMetric(tg.rps(), "toolgate_calls/s")
			b.ReportMetric(ref.rps(), "mcp_fs_calls/s")
			b.ReportMetric(tg.rps()/ref.rps(), "ratio")
			// The ceiling: what any HTTP server doing the read reaches
			// against the reference server on this machine.
			b.ReportMetric(floor.rps()/ref.rps(), "bare_ratio")
		})
	}
}

// callsFrom runs call perCaller times from each of callers goroutines.
func callsFrom(b *testing.B, callers, perCaller int, call func() error) loadResult {
	var wg sync.WaitGroup
	var n atomic.Int64
	start := time.Now()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perCaller {
				if err := call(); err != nil {
					b.Error(err)
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return loadResult{n: int(n.Load()), elapsed: time.Since(start)}
}
