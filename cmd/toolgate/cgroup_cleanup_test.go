package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testbuild"
)

// TestStopRemovesItsCgroups: a server stopped by SIGTERM leaves no cgroup
// directory behind. Before, every start left its run cgroups' parent and
// the sandbox's limit cgroup parents (empty directories) below the
// service's cgroup in each hierarchy.
func TestStopRemovesItsCgroups(t *testing.T) {
	tmp := t.TempDir()
	bin := testbuild.Binary(t, testbuild.Toolgate)
	ws := filepath.Join(tmp, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(tmp, "toolgate.json")
	if err := os.WriteFile(cfg, []byte(`{"policy": {"allow_all": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startProcess(t, bin, ws, cfg)
	pid := p.Pid()
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		resp, err := p.do(ctx, "POST", "/v1/sessions/default/messages", map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": fmt.Sprintf("cg%d", i), "name": "execute_command",
				"input": map[string]any{"command": "true", "requires_approval": false}}}})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		if resp.StatusCode != 200 || strings.Contains(string(body), `"is_error":true`) {
			t.Fatalf("command %d: %d %s", i, resp.StatusCode, body)
		}
	}
	made := serverCgroups(t, pid)
	if len(made) == 0 {
		p.Kill()
		t.Skip("the server made no cgroup here (no writable cgroup hierarchy)")
	}
	// SIGTERM, and a kill after 60 s, which Stop reports as an unclean end.
	if err := p.StopWithin(60 * time.Second); err != nil {
		t.Fatalf("the server did not stop cleanly within 60 s of SIGTERM: %v", err)
	}
	for _, dir := range made {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("left behind after SIGTERM: %s", dir)
		}
	}
}

// serverCgroups lists the cgroup directories named after the server's pid
// below its own cgroup in each mounted hierarchy.
func serverCgroups(t *testing.T, pid int) []string {
	t.Helper()
	mounts := cgroupMountPoints(t)
	f, err := os.Open(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// hierarchy-id:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			mount, ok := mounts[ctl]
			if !ok {
				continue
			}
			for _, pattern := range []string{fmt.Sprintf("toolgate-%d", pid), fmt.Sprintf("toolgate-limits-%d-*", pid)} {
				found, _ := filepath.Glob(filepath.Join(mount, parts[2], pattern))
				out = append(out, found...)
			}
		}
	}
	return out
}

// cgroupMountPoints maps each controller ("" for cgroup v2) to where its
// hierarchy is mounted.
func cgroupMountPoints(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 4 {
			continue
		}
		switch fields[2] {
		case "cgroup2":
			out[""] = fields[1]
		case "cgroup":
			for _, opt := range strings.Split(fields[3], ",") {
				if opt == "pids" || opt == "memory" {
					out[opt] = fields[1]
				}
			}
		}
	}
	return out
}
