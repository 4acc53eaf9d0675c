package sandbox

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// serverEnvVar, set in a test binary's environment, makes it stand in for
// toolgate: it makes a landlock-mode sandbox, says "ready" and waits for
// its stdin to close (see TestMain).
const serverEnvVar = "TOOLGATE_SANDBOX_TEST_SERVER"

// standInServer is the test binary run as toolgate with a sandbox.
func standInServer() {
	New(Config{Mode: ModeLandlock})
	os.Stdout.WriteString("ready\n")
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// TestServerEnvironmentIsNotReadable is the attack of a command reading
// the environment of toolgate (an API key set for the server) through
// /proc, which Landlock-only mode shares with it: a process that made a
// sandbox, as toolgate does, holds a secret in its environment, and the
// command must print nothing of it. Its open files are tried too.
func TestServerEnvironmentIsNotReadable(t *testing.T) {
	server := exec.Command(os.Args[0])
	server.Env = append(os.Environ(), serverEnvVar+"=1", "ANTHROPIC_API_KEY=SERVER-ENV-SECRET")
	stdin, err := server.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = server.Process.Kill(); _ = server.Wait() }()
	ready := make(chan string, 1)
	go func() { line, _ := bufio.NewReader(stdout).ReadString('\n'); ready <- line }()
	select {
	case line := <-ready:
		if line != "ready\n" {
			t.Fatalf("the stand-in server did not start: %q", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stand-in server did not start within 30 s")
	}
	pid := strconv.Itoa(server.Process.Pid)
	for _, mode := range ways {
		t.Run(mode, func(t *testing.T) {
			ws := filepath.Join(onDisk(t), "ws")
			writeFile(t, ws, "a", "a")
			s := newTest(t, Config{Mode: mode}, "")
			script := `cat /proc/` + pid + `/environ; cat /proc/*/environ; xargs -0 -n1 < /proc/` + pid + `/environ; ` +
				`cat /proc/` + pid + `/fd/*; tr '\0' '\n' < /proc/` + pid + `/task/*/environ; true`
			o := runIn(t, s, Run{Workspace: ws}, script)
			if contains(o.out, "SERVER-ENV-SECRET") {
				t.Errorf("the server's environment leaked:\n%.2000s", o.out)
			}
		})
	}
}
