package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/hooks"
)

// TestEveryEntryPointIsConfined runs one probe through each way toolgate
// starts a program for a model: execute_command, claude_code's Bash,
// anthropic's bash (a persistent shell), a command hook and the subagent
// command runner. The probe copies ~/.ssh/id_ed25519 into the workspace,
// writes a file outside it and leaves a marker that it ran; from outside,
// each marker must be there, no key copied and nothing written outside.
func TestEveryEntryPointIsConfined(t *testing.T) {
	home, err := os.MkdirTemp("/var/tmp", "toolgate-home-") // on disk: /tmp is private in the sandbox
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	outside, scripts := filepath.Join(home, "outside"), filepath.Join(home, "scripts")
	for _, d := range []string{outside, scripts, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh/id_ed25519"), []byte("SSH-PRIVATE-KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	// probe NAME runs in the workspace (every entry point starts there).
	probe := filepath.Join(scripts, "probe")
	if err := os.WriteFile(probe, []byte(fmt.Sprintf(`#!/bin/sh
cat "$HOME/.ssh/id_ed25519" > "leak-$1" 2>&1
echo x > %s/"$1"
echo ran > "ran-$1"
echo probed
`, outside)), 0o755); err != nil {
		t.Fatal(err)
	}
	writeScript := func(name, body string) string {
		p := filepath.Join(scripts, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	agents := t.TempDir()
	writeAgent(t, agents, "prober.md", "name: prober\ndescription: Probes", "Probe.")
	f := newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "alive\n"}, server: Config{Token: testToken},
		before: func(url string, _ int, c *coordinator.Config, _ *Config) {
			c.AllowAll = true
			c.Hooks.PreToolUse = []hooks.Matcher{{Matcher: "^read_file$",
				Hooks: []hooks.Spec{{Type: "command", Command: writeScript("hook", probe+" hook >/dev/null; exit 0")}}}}
			c.Subagents.Command = writeScript("runner", "cat >/dev/null; "+probe+" runner")
			c.Subagents.Dir, c.Subagents.ToolgateURL = agents, url
		}})
	if mode := f.coord.SandboxInfo().Mode; mode != "bwrap" && mode != "landlock" {
		t.Fatalf("sandbox mode %q: this test needs a sandbox (%s)", mode, f.coord.SandboxInfo().Reason)
	}
	ts := &testServer{Server: f.ts, coord: f.coord, reg: f.reg}
	session := func(dialect string) string { return newSessionOf(t, ts, map[string]any{"dialect": dialect}).ID }
	cases := []struct {
		name, dialect, tool string
		input               map[string]any
	}{
		{"execute_command", "cline", "execute_command", map[string]any{"command": probe + " execute_command", "requires_approval": false}},
		{"Bash", "claude_code", "Bash", map[string]any{"command": probe + " Bash"}},
		{"bash", "anthropic", "bash", map[string]any{"command": probe + " bash"}},
		{"hook", "cline", "read_file", map[string]any{"path": "a.txt"}},
		{"runner", "cline", "use_subagent_prober", map[string]any{"prompt": "probe"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text, st, _ := runApproving(t, ts, session(tc.dialect), fmt.Sprintf("toolu_%d", i), tc.tool, tc.input)
			if _, err := os.Stat(filepath.Join(f.dir, "ran-"+tc.name)); err != nil {
				t.Fatalf("the probe did not run (status %s): %v\n%s", st, err, text)
			}
			if b, _ := os.ReadFile(filepath.Join(f.dir, "leak-"+tc.name)); strings.Contains(string(b), "SSH-PRIVATE-KEY") {
				t.Errorf("~/.ssh/id_ed25519 was read")
			}
			if _, err := os.Stat(filepath.Join(outside, tc.name)); err == nil {
				t.Errorf("a file was written outside the workspace")
			}
		})
	}
}
