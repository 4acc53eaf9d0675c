package launch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary a stand-in server: "serve" prints a log
// line, the listening line, its token and its --config file's content,
// then waits for SIGTERM (exit 0); "stubborn" does the same but ignores
// SIGTERM; "fail" logs and exits 2; "silent" never says it listens.
const childEnv = "LAUNCH_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

func child(mode string) int {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	fmt.Fprintln(os.Stderr, "child log:", mode)
	switch mode {
	case "fail":
		return 2
	case "silent":
		select {}
	case "health":
		// Answers on LAUNCH_TEST_ADDR, printing no listening line.
		ln, err := net.Listen("tcp", os.Getenv("LAUNCH_TEST_ADDR"))
		if err != nil {
			return 3
		}
		go func() { _ = http.Serve(ln, http.NotFoundHandler()) }()
		<-term
		return 0
	}
	fmt.Println(ListeningPrefix + "http://127.0.0.1:1")
	fmt.Println("token=" + os.Getenv("TOOLGATE_TOKEN"))
	if i := len(os.Args) - 2; i > 0 && os.Args[i] == "--config" {
		data, _ := os.ReadFile(os.Args[i+1])
		fmt.Println("config=" + string(data))
	}
	<-term
	if mode == "stubborn" {
		select {}
	}
	return 0
}

func start(t *testing.T, mode string, o Options) (*Server, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o.Env = append(o.Env, childEnv+"="+mode)
	s, err := Start(context.Background(), exe, o)
	if s != nil {
		t.Cleanup(s.Kill)
	}
	return s, err
}

// next is the next line the server printed, within a deadline.
func next(t *testing.T, s *Server) string {
	t.Helper()
	select {
	case l := <-s.Lines():
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("no line from the server within 30 s")
	}
	return ""
}

// TestStartWaitsForListening: Start returns the announced URL, the token
// and the config reach the process, what it prints later comes on Lines,
// its log is kept, and Stop ends it cleanly with SIGTERM.
func TestStartWaitsForListening(t *testing.T) {
	s, err := start(t, "serve", Options{Args: []string{"serve"}, Token: "tok", Config: map[string]any{"a": 1}, Lines: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.URL != "http://127.0.0.1:1" {
		t.Errorf("URL = %q", s.URL)
	}
	if got := next(t, s); got != "token=tok" {
		t.Errorf("first line = %q, want token=tok", got)
	}
	if got := next(t, s); got != `config={"a":1}` {
		t.Errorf("second line = %q, want the config as JSON", got)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop = %v, want a clean exit", err)
	}
	if !strings.Contains(s.Log(), "child log: serve") {
		t.Errorf("log = %q", s.Log())
	}
}

// TestStartLogFileAndConfigPath: the log goes to LogFile and the config,
// given as text, to ConfigPath.
func TestStartLogFileAndConfigPath(t *testing.T) {
	dir := t.TempDir()
	cfg, logFile := filepath.Join(dir, "c.json"), filepath.Join(dir, "log")
	s, err := start(t, "serve", Options{Config: `{"b": 2}`, ConfigPath: cfg, LogFile: logFile, Lines: true})
	if err != nil {
		t.Fatal(err)
	}
	next(t, s)
	if got := next(t, s); got != `config={"b": 2}` {
		t.Errorf("config line = %q", got)
	}
	_ = s.Stop()
	if data, _ := os.ReadFile(logFile); !strings.Contains(string(data), "child log: serve") {
		t.Errorf("log file = %q", data)
	}
	if s.Log() != string(must(os.ReadFile(logFile))) {
		t.Errorf("Log() = %q, want the file's content", s.Log())
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestStartHealthURL: a program that prints no listening line is ready
// when its health URL answers, whatever the status.
func TestStartHealthURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s, err := start(t, "health", Options{HealthURL: "http://" + addr + "/health", Env: []string{"LAUNCH_TEST_ADDR=" + addr}})
	if err != nil {
		t.Fatal(err)
	}
	if s.URL != "http://"+addr {
		t.Errorf("URL = %q, want http://%s", s.URL, addr)
	}
	resp, err := http.Get(s.URL + "/x")
	if err != nil {
		t.Fatalf("the server does not answer after Start: %v", err)
	}
	resp.Body.Close()
	if err := s.Stop(); err != nil {
		t.Errorf("Stop = %v", err)
	}
}

// TestStartReportsEarlyExit: a process that exits before listening is an
// error that carries its log.
func TestStartReportsEarlyExit(t *testing.T) {
	_, err := start(t, "fail", Options{})
	if err == nil || !strings.Contains(err.Error(), "exited before listening") || !strings.Contains(err.Error(), "child log: fail") {
		t.Fatalf("err = %v, want an early exit with the log", err)
	}
}

// TestStartTimeout: a process that never says where it listens is killed
// after the timeout, with an error.
func TestStartTimeout(t *testing.T) {
	_, err := start(t, "silent", Options{Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not say where it listens") {
		t.Fatalf("err = %v, want a timeout", err)
	}
}

// TestStopKillsAfterGrace: a process that ignores SIGTERM is killed when
// the grace period ends, and Stop says it did not end cleanly.
func TestStopKillsAfterGrace(t *testing.T) {
	s, err := start(t, "stubborn", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StopWithin(200 * time.Millisecond); err == nil {
		t.Fatal("StopWithin = nil, want the kill's exit status")
	}
	select {
	case <-s.Exited():
	default:
		t.Fatal("the process has not ended")
	}
}

// TestProc reads this process's CPU time and memory.
func TestProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads Linux's /proc")
	}
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
	}
	own, all, err := CPU(os.Getpid())
	if err != nil || own <= 0 || all < own {
		t.Errorf("CPU = %v, %v, %v", own, all, err)
	}
	if rss, err := Memory(os.Getpid(), "VmRSS"); err != nil || rss < 1<<20 {
		t.Errorf("VmRSS = %d, %v", rss, err)
	}
	if _, err := Memory(os.Getpid(), "NoSuchField"); err == nil {
		t.Error("a missing field is no error")
	}
}
