package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testbuild"
)

// TestServeGovernsProcessors runs the toolgate binary and reads its
// GOMAXPROCS from /metrics, on the connection its calls use: reads posted
// one at a time on one connection bring it down to one; requests on a
// second connection have the default back before they are answered, and
// that connection left open and idle lets it down again; an event
// stream on another connection leaves it at one.
func TestServeGovernsProcessors(t *testing.T) {
	def := runtime.NumCPU()
	if def < 2 {
		t.Skip("one processor: nothing to govern")
	}
	bin := testbuild.Binary(t, testbuild.Toolgate)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startWithConfig(t, bin, ws, `{}`, "PATH="+os.Getenv("PATH"))
	one := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: 20 * time.Second}
	defer one.CloseIdleConnections()
	var seq atomic.Int64
	read := func() {
		t.Helper()
		body := fmt.Sprintf(`{"type":"tool_use","id":"toolu_procs_%d","name":"read_file","input":{"path":"a.txt"}}`, seq.Add(1))
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/tool_use", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+srv.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := one.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	procs := func() int {
		t.Helper()
		resp, err := one.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		// Read to its end: a body closed unread closes the connection,
		// and the next request would come on a new one.
		defer resp.Body.Close()
		threads := -1
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "go_sched_gomaxprocs_threads "); ok {
				n, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				threads = int(n)
			}
		}
		if threads < 0 {
			t.Fatal("/metrics has no go_sched_gomaxprocs_threads")
		}
		return threads
	}
	waitFor := func(want int, what string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			read()
			if procs() == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("GOMAXPROCS never became %d %s", want, what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor(1, "with reads one at a time on one connection")

	other := &http.Client{Timeout: 20 * time.Second}
	resp, err := other.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if n := procs(); n != def {
		t.Fatalf("GOMAXPROCS %d with requests on a second connection, want %d", n, def)
	}
	// The second connection stays open, idle, as a dashboard's does
	// between its scrapes.
	waitFor(1, "with a second connection open but idle")
	other.CloseIdleConnections()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/sessions/default/events", nil)
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	req.Header.Set("Accept", "text/event-stream")
	stream, err := other.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("events: %s", stream.Status)
	}
	waitFor(1, "with an event stream open on another connection")
}
