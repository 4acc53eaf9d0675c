package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/testbuild"
)

// BenchmarkReadVsFilesystemMCP reads a 1 KB file through toolgate (POST
// /v1/tool_use, read_file, a fresh tool_use id per call, one keep-alive
// connection per caller) and, alternating round by round in the same run,
// through the reference MCP filesystem server (Node, over stdio, its
// read_text_file tool) called with go-sdk's client from the same number of
// callers sharing the one session, as an MCP host does; as a third way,
// ToolUseVsBare's bare net/http handler (decode, read, encode) that is the
// ceiling of any HTTP server here.
//
// toolgate runs twice: with its defaults (the SQLite store, the request
// log at info level to a file, the sandbox as it comes), whose figures
// are toolgate_* and ratio, and lean (toolgate_lean_*: the memory store
// and warnings only, or the flags in TOOLGATE_BENCH_LEAN_ARGS, split at
// spaces, after those of the defaults, to tell one default's cost from
// another's); defaults_µs/call is
// what the defaults cost per call over lean, in toolgate's CPU.
//
// Every server runs as its own process (toolgate and the bare handler are
// this test binary started again), so besides the rates (calls/s, ratio,
// bare_ratio) it reports each server's own CPU time per call, read from
// /proc: a figure the load generator and other load on the machine do not
// move (server_µs/call, cpu_ratio = the reference server's CPU per call
// over toolgate's), and the load generator's CPU per call on each side
// (client_µs/call). The HTTP callers are lean: one connection each, the
// request written from a template with the fresh id put in, the answer
// read by its Content-Length.
//
// test.sh installs the reference server; by hand it is installed with npm
// into a scratch directory:
//
//	mkdir -p /tmp/toolgate-mcp-fs && (cd /tmp/toolgate-mcp-fs && npm install --no-save @modelcontextprotocol/server-filesystem@2026.8.31)
//	go test -run '^$' -bench ReadVsFilesystemMCP -benchtime 2x -count 3 ./cmd/toolgate/
//
// TOOLGATE_MCP_FS_DIR names another scratch directory.
func BenchmarkReadVsFilesystemMCP(b *testing.B) {
	node, script := testbuild.FilesystemMCPServer(b)
	dir := b.TempDir()
	content := strings.Repeat("0123456789abcde\n", 64)
	if err := os.WriteFile(filepath.Join(dir, "one_kb.txt"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	const token = "bench-token"
	serve := []string{"serve", "--addr", "127.0.0.1:0", "--workspace", dir}
	tg := startChild(b, append(serve, defaultStateArgs(b)...)...)
	var leanEnv []string
	if p := os.Getenv("TOOLGATE_BENCH_CPUPROFILE"); p != "" {
		leanEnv = []string{"TOOLGATE_BENCH_CPUPROFILE=" + p + ".lean"}
	}
	tgLean := startChildEnv(b, leanEnv, append(append(serve, defaultStateArgs(b)...), leanArgs()...)...)
	bare := startChild(b, "bare", dir)

	cmd := exec.Command(node, script, dir)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	fs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer fs.Close()
	nodePID := cmd.Process.Pid
	file := filepath.Join(dir, "one_kb.txt")
	readMCP := func() error {
		res, err := fs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": file}})
		if err == nil && (res.IsError || len(res.Content) == 0) {
			err = fmt.Errorf("read_text_file failed: %+v", res.Content)
		}
		return err
	}
	// The reference server answers with the file, as toolgate does.
	res, err := fs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": file}})
	if err != nil {
		b.Fatal(err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != content {
		b.Fatalf("read_text_file answered %+v", res.Content)
	}

	lean := startLeanMCP(b, exec.Command(node, script, dir), file)
	if _, err := lean.read(nil); err != nil {
		b.Fatal(err)
	}

	var seq atomic.Int64
	for _, s := range []*benchServer{tg, tgLean, bare} {
		c, err := dialLean(s.url, token)
		if err != nil {
			b.Fatal(err)
		}
		body, err := c.readFile(seq.Add(1))
		c.Close()
		if err != nil {
			b.Fatal(err)
		}
		// The whole file (toolgate numbers its lines).
		if strings.Count(string(body), "0123456789abcde") != 64 {
			b.Fatalf("%s answered %.300s", s.url, body)
		}
	}

	const rounds, calls = 4, 1920 // per round and side, shared by the callers
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			var conns [3][]*leanConn
			for i, s := range []*benchServer{tg, bare, tgLean} {
				for range callers {
					c, err := dialLean(s.url, token)
					if err != nil {
						b.Fatal(err)
					}
					defer c.Close()
					conns[i] = append(conns[i], c)
				}
			}
			var tgM, tgLeanM, refM, leanM, bareM sideMeasure
			for range b.N {
				for range rounds {
					tgM.measure(b, tg.pid, func() loadResult { return leanLoad(b, conns[0], calls/callers, &seq) })
					tgLeanM.measure(b, tgLean.pid, func() loadResult { return leanLoad(b, conns[2], calls/callers, &seq) })
					refM.measure(b, nodePID, func() loadResult { return callsFrom(b, callers, calls/callers, readMCP) })
					leanM.measure(b, lean.cmd.Process.Pid, func() loadResult { return leanMCPLoad(b, lean, callers, calls/callers) })
					bareM.measure(b, bare.pid, func() loadResult { return leanLoad(b, conns[1], calls/callers, &seq) })
				}
			}
			b.ReportMetric(tgM.rps(), "toolgate_calls/s")
			b.ReportMetric(refM.rps(), "mcp_fs_calls/s")
			b.ReportMetric(tgM.rps()/refM.rps(), "ratio")
			// The ceiling: what a bare HTTP server doing the read reaches
			// against the reference server on this machine.
			b.ReportMetric(bareM.rps()/refM.rps(), "bare_ratio")
			b.ReportMetric(tgM.serverPerCall(), "toolgate_server_µs/call")
			b.ReportMetric(tgLeanM.rps(), "toolgate_lean_calls/s")
			b.ReportMetric(tgLeanM.rps()/refM.rps(), "toolgate_lean_ratio")
			b.ReportMetric(tgLeanM.serverPerCall(), "toolgate_lean_server_µs/call")
			b.ReportMetric(tgM.serverPerCall()-tgLeanM.serverPerCall(), "defaults_µs/call")
			b.ReportMetric(refM.serverPerCall(), "mcp_fs_server_µs/call")
			b.ReportMetric(bareM.serverPerCall(), "bare_server_µs/call")
			b.ReportMetric(refM.serverPerCall()/tgM.serverPerCall(), "cpu_ratio")
			b.ReportMetric(refM.serverPerCall()/bareM.serverPerCall(), "bare_cpu_ratio")
			b.ReportMetric(tgM.clientPerCall(), "toolgate_client_µs/call")
			b.ReportMetric(refM.clientPerCall(), "mcp_fs_client_µs/call")
			// The reference server again, from a client as lean as
			// toolgate's callers.
			b.ReportMetric(leanM.rps(), "mcp_fs_lean_calls/s")
			b.ReportMetric(tgM.rps()/leanM.rps(), "lean_ratio")
			b.ReportMetric(leanM.serverPerCall(), "mcp_fs_lean_server_µs/call")
			b.ReportMetric(leanM.clientPerCall(), "mcp_fs_lean_client_µs/call")
		})
	}
}

// defaultStateArgs are the flags of a toolgate with its defaults: only
// its state database goes to a scratch directory (the default is the
// user's state directory).
func defaultStateArgs(b *testing.B) []string {
	cfg := filepath.Join(b.TempDir(), "toolgate.json")
	body, _ := json.Marshal(map[string]any{"store": map[string]any{"path": filepath.Join(b.TempDir(), "state.db")}})
	if err := os.WriteFile(cfg, body, 0o600); err != nil {
		b.Fatal(err)
	}
	return []string{"--config", cfg}
}

// leanArgs are the flags of the lean toolgate: the memory store and
// warnings only, or TOOLGATE_BENCH_LEAN_ARGS split at spaces.
func leanArgs() []string {
	if v := os.Getenv("TOOLGATE_BENCH_LEAN_ARGS"); v != "" {
		return strings.Fields(v)
	}
	return []string{"--store", "memory", "--log-level", "warn"}
}

// sideMeasure sums one side's rounds: calls, wall time, the server
// process's CPU and this (load generating) process's CPU.
type sideMeasure struct {
	load           loadResult
	server, client time.Duration
}

func (m *sideMeasure) measure(b *testing.B, pid int, load func() loadResult) {
	s0, c0 := childCPU(b, pid), processCPU()
	m.load = m.load.add(load())
	m.server += childCPU(b, pid) - s0
	m.client += processCPU() - c0
}

func (m *sideMeasure) rps() float64 { return m.load.rps() }

func (m *sideMeasure) serverPerCall() float64 {
	return float64(m.server.Microseconds()) / float64(m.load.n)
}

func (m *sideMeasure) clientPerCall() float64 {
	return float64(m.client.Microseconds()) / float64(m.load.n)
}

// leanConn posts read_file tool_use blocks over one keep-alive HTTP/1.1
// connection: the request is a template with the id put in, the answer is
// read by its Content-Length into a reused buffer.
type leanConn struct {
	net.Conn
	r         *bufio.Reader
	head, req []byte
	body      []byte
}

func dialLean(url, token string) (*leanConn, error) {
	host := strings.TrimPrefix(url, "http://")
	c, err := net.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	head := "POST /v1/tool_use HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + token +
		"\r\nContent-Type: application/json\r\nContent-Length: "
	return &leanConn{Conn: c, r: bufio.NewReaderSize(c, 8192), head: []byte(head)}, nil
}

// readFile posts the block readFileBody(n) and returns the answer's body,
// valid until the next call.
func (c *leanConn) readFile(n int64) ([]byte, error) {
	const pre, post = `{"type":"tool_use","id":"toolu_`, `","name":"read_file","input":{"path":"one_kb.txt"}}`
	idLen := len(strconv.AppendInt(nil, n, 10))
	req := append(c.req[:0], c.head...)
	req = strconv.AppendInt(req, int64(len(pre)+idLen+len(post)), 10)
	req = append(req, "\r\n\r\n"+pre...)
	req = strconv.AppendInt(req, n, 10)
	req = append(req, post...)
	c.req = req
	if _, err := c.Write(req); err != nil {
		return nil, err
	}
	status, length := 0, -1
	for first := true; ; first = false {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		if first {
			if len(line) < 12 {
				return nil, fmt.Errorf("status line %q", line)
			}
			status, _ = strconv.Atoi(string(line[9:12]))
		} else if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(k), "Content-Length") {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	if length < 0 {
		return nil, errors.New("answer without Content-Length")
	}
	if cap(c.body) < length {
		c.body = make([]byte, length)
	}
	c.body = c.body[:length]
	if _, err := io.ReadFull(c.r, c.body); err != nil {
		return nil, err
	}
	if status != 200 {
		return nil, fmt.Errorf("status %d: %.300s", status, c.body)
	}
	return c.body, nil
}

// leanLoad runs perConn calls on each connection at once, each with a
// fresh id, and checks every answer carries its own id.
func leanLoad(b *testing.B, conns []*leanConn, perConn int, seq *atomic.Int64) loadResult {
	var wg sync.WaitGroup
	var done atomic.Int64
	start := time.Now()
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var want []byte
			for range perConn {
				n := seq.Add(1)
				body, err := c.readFile(n)
				if err == nil {
					want = strconv.AppendInt(append(want[:0], `"toolu_`...), n, 10)
					if !bytes.Contains(body, append(want, '"')) {
						err = fmt.Errorf("answer without its id %d: %.300s", n, body)
					}
				}
				if err != nil {
					b.Error(err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return loadResult{n: int(done.Load()), elapsed: time.Since(start)}
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

// leanMCP calls a stdio MCP server's read_text_file with as little client
// work as toolgate's lean HTTP callers: each request is a template with a
// fresh JSON-RPC id put in, written under one lock; one reader hands each
// answer line to the caller waiting on its id.
type leanMCP struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	wmu     sync.Mutex
	pre     []byte // the request up to its id
	post    []byte // the request after its id
	mu      sync.Mutex
	pending map[int64]chan []byte
	seq     atomic.Int64
}

// startLeanMCP starts the server command, initializes the session (MCP
// lifecycle: initialize, then notifications/initialized) and starts the
// reader.
func startLeanMCP(b *testing.B, cmd *exec.Cmd, file string) *leanMCP {
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
	path, _ := json.Marshal(file)
	m := &leanMCP{cmd: cmd, stdin: stdin, pending: map[int64]chan []byte{},
		pre:  []byte(`{"jsonrpc":"2.0","id":`),
		post: []byte(`,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":` + string(path) + `}}}` + "\n")}
	b.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	go func() {
		r := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				m.mu.Lock()
				for id, ch := range m.pending {
					close(ch)
					delete(m.pending, id)
				}
				m.pending = nil
				m.mu.Unlock()
				return
			}
			i := bytes.LastIndex(line, []byte(`"id":`))
			if i < 0 {
				continue // a notification
			}
			j := i + 5
			for j < len(line) && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			id, _ := strconv.ParseInt(string(line[i+5:j]), 10, 64)
			m.mu.Lock()
			ch := m.pending[id]
			delete(m.pending, id)
			m.mu.Unlock()
			if ch != nil {
				ch <- line
			}
		}
	}()
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"
	ch := m.await(0)
	if _, err := io.WriteString(stdin, init); err != nil {
		b.Fatal(err)
	}
	select {
	case line, ok := <-ch:
		if !ok || !bytes.Contains(line, []byte(`"result"`)) {
			b.Fatalf("initialize answered %q", line)
		}
	case <-time.After(30 * time.Second):
		b.Fatal("no answer to initialize")
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	return m
}

func (m *leanMCP) await(id int64) chan []byte {
	ch := make(chan []byte, 1)
	m.mu.Lock()
	m.pending[id] = ch
	m.mu.Unlock()
	return ch
}

// read calls read_text_file with a fresh id and checks the answer holds
// the whole 1 KB file; buf is the request buffer, reused.
func (m *leanMCP) read(buf []byte) ([]byte, error) {
	id := m.seq.Add(1)
	ch := m.await(id)
	buf = strconv.AppendInt(append(buf[:0], m.pre...), id, 10)
	buf = append(buf, m.post...)
	m.wmu.Lock()
	_, err := m.stdin.Write(buf)
	m.wmu.Unlock()
	if err != nil {
		return buf, err
	}
	line, ok := <-ch
	if !ok {
		return buf, errors.New("the server closed its output")
	}
	// The text comes twice: as content and as structuredContent.
	if c := bytes.Count(line, []byte("0123456789abcde")); c == 0 || c%64 != 0 || bytes.Contains(line, []byte(`"isError":true`)) {
		return buf, fmt.Errorf("read_text_file answered %.300s", line)
	}
	return buf, nil
}

// leanMCPLoad runs perCaller reads from each of callers goroutines.
func leanMCPLoad(b *testing.B, m *leanMCP, callers, perCaller int) loadResult {
	var wg sync.WaitGroup
	var n atomic.Int64
	start := time.Now()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			var err error
			for range perCaller {
				if buf, err = m.read(buf); err != nil {
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
