package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/dialect/cline"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/store"
)

// commandEnv is a coordinator over a fresh workspace with the default tools.
type commandEnv struct {
	dir   string
	coord *coordinator.Coordinator
	sess  *coordinator.Session
	reg   *prometheus.Registry
}

func newCommandEnv(t *testing.T, cfg tool.CommandConfig) *commandEnv {
	t.Helper()
	return newStoredCommandEnv(t, cfg, nil)
}

// newStoredCommandEnv is newCommandEnv with the coordinator recording its
// calls in st (nil: none).
func newStoredCommandEnv(t *testing.T, cfg tool.CommandConfig, st store.Store) *commandEnv {
	t.Helper()
	dir := t.TempDir()
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	conf := coordinator.DefaultConfig()
	if cfg.OutputDir == "" {
		cfg.OutputDir = t.TempDir()
	}
	conf.Commands = cfg
	conf.AllowAll = true // these tests are about running commands, not approving them
	reg := prometheus.NewRegistry()
	c := coordinator.New(coordinator.Options{Config: conf, Workspace: ws, Tools: Default(), Registerer: reg, Dialects: []tool.Dialect{cline.Dialect()}, Store: st})
	t.Cleanup(c.Close)
	sess, err := c.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		t.Fatal(err)
	}
	return &commandEnv{dir: ws.Dir, coord: c, sess: sess, reg: reg}
}

func (e *commandEnv) exec(t *testing.T, in map[string]any) (api.ToolResult, api.CallRecord) {
	t.Helper()
	if _, ok := in["requires_approval"]; !ok {
		in["requires_approval"] = false // Cline always sends it
	}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	use := api.ToolUse{Type: api.TypeToolUse, ID: coordinator.NewID("toolu_"), Name: "execute_command", Input: raw}
	return e.coord.Execute(t.Context(), e.sess, "", use)
}

func cmdText(r api.ToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func TestExecuteCommandExitCodes(t *testing.T) {
	e := newCommandEnv(t, tool.CommandConfig{})
	for _, tc := range []struct {
		name, cmd string
		isError   bool
		status    api.CallStatus
		code      string
		want      []string
	}{
		// Cline's texts: integrations/terminal/CommandOrchestrator.ts.
		{"success", "echo hello", false, api.StatusSucceeded, "", []string{"Command executed successfully (exit code 0).\nOutput:\nhello"}},
		{"failure keeps output", "echo partial; echo oops >&2; exit 4", true, api.StatusFailed, api.ToolCodeExitStatus, []string{"Command failed with exit code 4.\nOutput:\n", "partial", "oops"}},
		{"no output", "true", false, api.StatusSucceeded, "", []string{"Command executed successfully (exit code 0)."}},
		{"signal", "kill -KILL $$", true, api.StatusFailed, api.ToolCodeExitStatus, []string{"Command terminated by signal SIGKILL."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, rec := e.exec(t, map[string]any{"command": tc.cmd, "requires_approval": false})
			got := cmdText(res)
			if res.IsError != tc.isError || rec.Status != tc.status {
				t.Errorf("is_error %v status %s, want %v %s (%q)", res.IsError, rec.Status, tc.isError, tc.status, got)
			}
			if tc.code != "" && (rec.Error == nil || rec.Error.Code != tc.code) {
				t.Errorf("error %+v, want code %s", rec.Error, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("result %q lacks %q", got, w)
				}
			}
		})
	}
}

func TestExecuteCommandEnvironment(t *testing.T) {
	server := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=/home/x", "TOOLGATE_TOKEN=server-token-value",
		"OPENAI_API_KEY=k1", "AWS_SECRET_ACCESS_KEY=k2", "GITHUB_TOKEN=k3", "DB_PASSWORD=k4",
		"GOOGLE_APPLICATION_CREDENTIALS=k5", "npm_config_authToken=k6", "NPM_TOKEN=passed", "LANG=C.UTF-8",
	}
	e := newCommandEnv(t, tool.CommandConfig{
		Environ: func() []string { return server },
		PassEnv: []string{"NPM_*", "TOOLGATE_TOKEN"},
		Env:     map[string]string{"ADDED": "yes", "TOOLGATE_TOKEN": "also-not"},
	})
	res, rec := e.exec(t, map[string]any{"command": "printenv"})
	if rec.Status != api.StatusSucceeded {
		t.Fatalf("status %s: %s", rec.Status, cmdText(res))
	}
	got := cmdText(res)
	for _, secret := range []string{"server-token-value", "also-not", "TOOLGATE_TOKEN", "k1", "k2", "k3", "k4", "k5", "k6"} {
		if strings.Contains(got, secret) {
			t.Errorf("printenv shows %q:\n%s", secret, got)
		}
	}
	for _, want := range []string{"NPM_TOKEN=passed", "ADDED=yes", "HOME=/home/x", "LANG=C.UTF-8", "GIT_TERMINAL_PROMPT=0"} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("printenv lacks %q:\n%s", want, got)
		}
	}
}

func TestExecuteCommandCwd(t *testing.T) {
	e := newCommandEnv(t, tool.CommandConfig{})
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(e.dir, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cwd string
		code      string
		want      string
	}{
		{"workspace", "", "", e.dir + "\n"},
		{"subdirectory", "sub/deep", "", filepath.Join(e.dir, "sub", "deep") + "\n"},
		{"absolute inside", filepath.Join(e.dir, "sub"), "", filepath.Join(e.dir, "sub") + "\n"},
		{"dot dot", "../", api.ToolCodeOutside, ""},
		{"climbing", "sub/../../x", api.ToolCodeOutside, ""},
		{"absolute outside", outside, api.ToolCodeOutside, ""},
		{"sibling", e.dir + "_evil", api.ToolCodeOutside, ""},
		{"symlink out", "out", api.ToolCodeOutside, ""},
		{"missing", "nope", api.ToolCodeNotFound, ""},
		{"a file", "file", "not_directory", ""},
		{"nul", "a\x00b", "invalid_path", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, rec := e.exec(t, map[string]any{"command": "pwd", "cwd": tc.cwd})
			got := cmdText(res)
			if tc.code == "" {
				if rec.Status != api.StatusSucceeded || !strings.HasPrefix(got, "Command executed successfully (exit code 0).\nOutput:\n"+tc.want) {
					t.Errorf("status %s result %q, want %q", rec.Status, got, tc.want)
				}
				return
			}
			if rec.Error == nil || rec.Error.Code != tc.code || !res.IsError {
				t.Errorf("error %+v (result %q), want code %s", rec.Error, got, tc.code)
			}
			if strings.Contains(got, outside) && tc.name != "absolute outside" {
				t.Errorf("result %q shows the outside directory", got)
			}
		})
	}
}

func TestExecuteCommandTimeout(t *testing.T) {
	e := newCommandEnv(t, tool.CommandConfig{})
	res, rec := e.exec(t, map[string]any{"command": "echo before; sleep 30", "timeout": 1})
	got := cmdText(res)
	if rec.Status != api.StatusFailed || rec.Error == nil || rec.Error.Code != api.ToolCodeTimedOut {
		t.Errorf("status %s error %+v, want failed %s", rec.Status, rec.Error, api.ToolCodeTimedOut)
	}
	if !strings.Contains(got, "before\n") || !strings.Contains(got, "timed out after 1s") {
		t.Errorf("result %q lacks the output so far or the timeout", got)
	}
	if strings.Contains(got, "Exit code") {
		t.Errorf("a timed-out command's result reports an exit code: %q", got)
	}
	if n := e.commandsTotal(t, "timed_out"); n != 1 {
		t.Errorf("toolgate_commands_total{status=timed_out} = %v, want 1", n)
	}
}

func (e *commandEnv) commandsTotal(t *testing.T, status string) float64 {
	t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "toolgate_commands_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == status {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no toolgate_commands_total{status=%q}", status)
	return 0
}

func TestCommandTimeoutClass(t *testing.T) {
	cfg := &tool.CommandConfig{}
	for _, tc := range []struct {
		cmd  string
		req  int
		want time.Duration
	}{
		{"ls -la", 0, 30 * time.Second},
		{"npm install", 0, 300 * time.Second},
		{"go test ./...", 0, 300 * time.Second},
		{"cd web && make", 0, 300 * time.Second},
		{"npm install", 5, 5 * time.Second},
		{"sleep 1", 100000, time.Hour},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			in := &ExecuteCommandInput{Command: tc.cmd, Timeout: tc.req}
			if got := commandTimeout(cfg, in); got != tc.want {
				t.Errorf("timeout %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCommandPaths(t *testing.T) {
	got := commandPaths(&ExecuteCommandInput{Command: "cat a.txt /etc/passwd ~/x ../up", Cwd: "sub"})
	want := []string{"sub", "sub/a.txt", "/etc/passwd", "~/x", "up"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("paths %q, want %q", got, want)
	}
}

// TestExecuteCommandCancelledSaysWhy interrupts a running command: its
// result is the output it printed, then only that it was cancelled and
// why. No exit trailer: the command never exited on its own.
func TestExecuteCommandCancelledSaysWhy(t *testing.T) {
	e := newCommandEnv(t, tool.CommandConfig{})
	after := e.sess.Events.LastID()
	type answer struct {
		res api.ToolResult
		rec api.CallRecord
	}
	done := make(chan answer, 1)
	go func() {
		res, rec := e.exec(t, map[string]any{"command": "echo partial; sleep 30"})
		done <- answer{res, rec}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := e.sess.Events.WaitFor(ctx, after, func(ev api.Event) bool {
		return ev.Type == api.EventToolOutput && strings.Contains(ev.Chunk, "partial")
	}); err != nil {
		t.Fatalf("the command's output never arrived: %v", err)
	}
	e.sess.Interrupt(errors.New("interrupted by the user"))
	var a answer
	select {
	case a = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupted command did not end")
	}
	got := cmdText(a.res)
	if a.rec.Status != api.StatusCancelled || !a.res.IsError {
		t.Errorf("status %s is_error %v, want cancelled and an error", a.rec.Status, a.res.IsError)
	}
	if strings.Contains(got, "Exit code") {
		t.Errorf("a cancelled command's result reports an exit code: %q", got)
	}
	last := a.res.Content[len(a.res.Content)-1].Text
	if !strings.HasPrefix(got, "partial\n") || last != "Cancelled: interrupted by the user" {
		t.Errorf("result = %q, want the output, then only %q", got, "Cancelled: interrupted by the user")
	}
}
