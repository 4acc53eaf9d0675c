package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// standInEnvVar, set in a test binary's environment, makes it stand in
// for toolgate (see TestMain); its value is the part it plays.
const standInEnvVar = "TOOLGATE_SANDBOX_TEST_SERVER"

// The parts a stand-in plays.
const (
	standInSandbox = "sandbox" // makes a landlock-mode sandbox
	standInProxies = "proxies" // starts a network_allow relay and a session network's proxy
)

// playStandIn plays the part the test binary's environment names, if any: it
// makes what the part says, prints "ready" and the directories it made,
// and waits for its stdin to close, then exits. Without a part it
// returns.
func playStandIn() {
	var made []string
	switch part := os.Getenv(standInEnvVar); part {
	case "":
		return
	case standInSandbox:
		New(Config{Mode: ModeLandlock})
	case standInProxies:
		var relay allowProxy
		if err := relay.start([]string{"localhost"}); err != nil {
			standInFailed(err)
		}
		session, err := (&Sandbox{}).startSessionProxy(NetworkOptions{})
		if err != nil {
			standInFailed(err)
		}
		made = append(made, relay.dir.path, session.dir.path)
	default:
		standInFailed(fmt.Errorf("no stand-in part %q", part))
	}
	fmt.Println(strings.Join(append([]string{"ready"}, made...), " "))
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// standInFailed ends a stand-in that could not play its part.
func standInFailed(err error) {
	fmt.Println(err)
	os.Exit(1)
}

// startStandIn starts the test binary as a stand-in toolgate playing
// part, with env added to the environment, and waits for it to be ready.
// It returns the process and the directories the stand-in made; the
// test's end stops it.
func startStandIn(t *testing.T, part string, env ...string) (*exec.Cmd, []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), standInEnvVar+"="+part), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan string, 1)
	go func() { line, _ := bufio.NewReader(stdout).ReadString('\n'); ready <- line }()
	select {
	case line := <-ready:
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "ready" {
			t.Fatalf("the stand-in %s did not start: %q", part, line)
		}
		return cmd, fields[1:]
	case <-time.After(30 * time.Second):
		t.Fatalf("the stand-in %s did not start within 30 s", part)
		return nil, nil
	}
}
