package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/launch"
)

// startWithConfig starts the toolgate binary on the workspace ws with
// the config text config and the in-memory store, logging at info, in an
// environment of its own: a fresh HOME, then env (PATH, TMPDIR). The
// test's end kills it.
func startWithConfig(t *testing.T, bin, ws, config string, env ...string) *serverProcess {
	t.Helper()
	srv, err := launch.Start(context.Background(), bin, launch.Options{
		Args:    launch.ServeArgs(ws, "--store", "memory"),
		Config:  config,
		Token:   "start-token",
		BaseEnv: append([]string{"HOME=" + t.TempDir()}, env...),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Kill)
	return &serverProcess{Server: srv, client: &http.Client{Timeout: 20 * time.Second}}
}

// waitForLog waits, 10 s at most, until the server's log holds each of
// texts: the log reaches its buffer through a pipe.
func waitForLog(t *testing.T, srv *serverProcess, texts ...string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		log := srv.Log()
		if saysAll(log, texts) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log does not say %q; log:\n%s", texts, log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// saysAll reports whether log holds each of texts.
func saysAll(log string, texts []string) bool {
	for _, s := range texts {
		if !strings.Contains(log, s) {
			return false
		}
	}
	return true
}
