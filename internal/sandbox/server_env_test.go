package sandbox

import (
	"path/filepath"
	"strconv"
	"testing"
)

// TestServerEnvironmentIsNotReadable is the attack of a command reading
// the environment of toolgate (an API key set for the server) through
// /proc, which Landlock-only mode shares with it: a process that made a
// sandbox, as toolgate does, holds a secret in its environment, and the
// command must print nothing of it. Its open files are tried too.
func TestServerEnvironmentIsNotReadable(t *testing.T) {
	server, _ := startStandIn(t, standInSandbox, "ANTHROPIC_API_KEY=SERVER-ENV-SECRET")
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
