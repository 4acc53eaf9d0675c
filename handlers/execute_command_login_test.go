package handlers

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect/cline"
	"github.com/toolgate/toolgate/internal/launch"
)

// loginSetup is a coordinator whose commands' HOME holds profile (as
// .bash_profile and .profile), inside the workspace as a sandboxed
// command sees it; its dialect "codex" (a test one) sets LANG and
// NO_COLOR for its commands as Codex's does, and runs execute_command as
// Run. Each command the profile runs for adds a line to the file count;
// with profile "" HOME holds no profile (/etc/profile alone is read).
type loginSetup struct {
	commandEnv
	count string
	logs  *launch.LogBuffer
}

func newLoginSetup(t testing.TB, cfg tool.CommandConfig, profile string) *loginSetup {
	t.Helper()
	dir := t.TempDir()
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	home := filepath.Join(ws.Dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(home, "count")
	if profile != "" {
		profile = "echo read >> " + count + "\necho profile message\n" + profile
		for _, name := range []string{".bash_profile", ".profile"} {
			if err := os.WriteFile(filepath.Join(home, name), []byte(profile), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := append(os.Environ(), "HOME="+home, "SERVER_API_KEY=server")
	cfg.Environ = func() []string { return env }
	cfg.OutputDir = t.TempDir()
	conf := coordinator.DefaultConfig()
	conf.Commands = cfg
	conf.AllowAll = true
	logs := &launch.LogBuffer{}
	reg := prometheus.NewRegistry()
	codex := tool.Dialect{Name: api.DialectCodex, PlainResults: true, Tools: []*tool.DialectTool{runTool()},
		CommandEnv: map[string]string{"LANG": "C.UTF-8", "NO_COLOR": "1"}}
	c := coordinator.New(coordinator.Options{Config: conf, Workspace: ws, Tools: Default(), Registerer: reg,
		Dialects: []tool.Dialect{cline.Dialect(), codex}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	t.Cleanup(c.Close)
	sess, err := c.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		t.Fatal(err)
	}
	return &loginSetup{commandEnv: commandEnv{dir: ws.Dir, coord: c, sess: sess, reg: reg}, count: count, logs: logs}
}

// runTool is a dialect's Run, execute_command as it is.
func runTool() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[ExecuteCommandInput]{
		Name: "Run", Description: "Run a command.", Targets: []string{"execute_command"},
		Map: func(env tool.MapEnv, in *ExecuteCommandInput) (tool.Mapping, error) {
			return tool.Mapping{Tool: "execute_command", Input: in}, nil
		},
	})
}

// reads is how many times the profile was read.
func (s *loginSetup) reads(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(s.count)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(data), "read\n")
}

// codexSession is a new session of the test dialect "codex".
func (s *loginSetup) codexSession(t *testing.T) *coordinator.Session {
	t.Helper()
	sess, err := s.coord.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	sess.Update(api.UpdateSessionRequest{Dialect: api.DialectCodex})
	return sess
}

// run runs line with login in sess as the test dialect's Run and
// returns its output.
func (s *loginSetup) run(t *testing.T, sess *coordinator.Session, line string) string {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"command": line, "login": true, "requires_approval": false})
	if err != nil {
		t.Fatal(err)
	}
	res, rec := s.coord.Execute(t.Context(), sess, "", api.ToolUse{Type: api.TypeToolUse, ID: coordinator.NewID("toolu_"), Name: "Run", Input: raw})
	if rec.Status != api.StatusSucceeded {
		t.Fatalf("%s: %s %q", line, rec.Status, cmdText(res))
	}
	return strings.TrimSpace(cmdText(res))
}

// A session's login commands read the profile once, in the foreground
// and in the background alike, and still get what it exports; another
// shell reads its own once; another session reads it again.
func TestExecuteCommandLoginOnce(t *testing.T) {
	s := newLoginSetup(t, tool.CommandConfig{}, "export FROM_PROFILE=yes\n")
	for i := range 3 {
		res, _ := s.exec(t, map[string]any{"command": `echo "profile=$FROM_PROFILE"`, "login": true})
		if got := cmdText(res); !strings.Contains(got, "Output:\nprofile=yes") || strings.Contains(got, "profile message") {
			t.Fatalf("command %d: %q, want profile=yes", i, got)
		}
	}
	res, _ := s.exec(t, map[string]any{"command": `echo "profile=$FROM_PROFILE"`, "login": true, "background": true, "yield_ms": 10000})
	if got := cmdText(res); !strings.Contains(got, "profile=yes") {
		t.Fatalf("background: %q, want profile=yes", got)
	}
	if n := s.reads(t); n != 1 {
		t.Errorf("the profile was read %d times for 4 commands, want once", n)
	}
	s.exec(t, map[string]any{"command": "true", "login": true, "shell": "sh"})
	s.exec(t, map[string]any{"command": "true", "login": true, "shell": "sh"})
	if n := s.reads(t); n != 2 {
		t.Errorf("the profile was read %d times after two sh commands, want twice", n)
	}
	if got := s.run(t, s.codexSession(t), `echo "profile=$FROM_PROFILE"`); !strings.HasSuffix(got, "\nprofile=yes") {
		t.Errorf("another session: %q, want profile=yes", got)
	}
	if n := s.reads(t); n != 3 {
		t.Errorf("the profile was read %d times after another session's command, want 3", n)
	}
}

// What the profile exports passes the server's rule for its own
// environment: a secret-looking name is dropped unless pass_env names
// it, the server token always; the configured env and the dialect's
// variables override the profile's, as they override the server's.
func TestExecuteCommandLoginFiltered(t *testing.T) {
	profile := "export PROFILE_API_KEY=leak GITHUB_TOKEN=leak NPM_TOKEN=passed TOOLGATE_TOKEN=leak\n" +
		"export LANG=profile NO_COLOR=profile FROM_CONFIG=profile FROM_PROFILE=yes PAGER=less\n"
	s := newLoginSetup(t, tool.CommandConfig{PassEnv: []string{"NPM_TOKEN"}, Env: map[string]string{"FROM_CONFIG": "config"}}, profile)
	line := `for v in PROFILE_API_KEY GITHUB_TOKEN SERVER_API_KEY TOOLGATE_TOKEN NPM_TOKEN LANG NO_COLOR FROM_CONFIG FROM_PROFILE PAGER; do eval "echo $v=\${$v-unset}"; done`
	got := s.run(t, s.codexSession(t), line)
	want := "PROFILE_API_KEY=unset\nGITHUB_TOKEN=unset\nSERVER_API_KEY=unset\nTOOLGATE_TOKEN=unset\nNPM_TOKEN=passed\n" +
		"LANG=C.UTF-8\nNO_COLOR=1\nFROM_CONFIG=config\nFROM_PROFILE=yes\nPAGER=less"
	if !strings.HasSuffix(got, want) {
		t.Errorf("output %q, want it to end %q", got, want)
	}
}

// A profile that hangs is killed at the bound: the session's login
// commands run without its environment, the capture is not tried again
// and its failure is logged once.
func TestExecuteCommandLoginHangs(t *testing.T) {
	s := newLoginSetup(t, tool.CommandConfig{LoginTimeout: 300 * time.Millisecond}, "export FROM_PROFILE=yes\nsleep 60\n")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for i := range 2 {
		use := api.ToolUse{Type: api.TypeToolUse, ID: coordinator.NewID("toolu_"), Name: "execute_command",
			Input: []byte(`{"command":"echo \"profile=${FROM_PROFILE-unset}\"","login":true,"requires_approval":false}`)}
		res, rec := s.coord.Execute(ctx, s.sess, "", use)
		if got := cmdText(res); rec.Status != api.StatusSucceeded || !strings.Contains(got, "Output:\nprofile=unset") {
			t.Fatalf("command %d: %s %q, want profile=unset", i, rec.Status, got)
		}
	}
	if n := s.reads(t); n != 1 {
		t.Errorf("the profile was read %d times, want once", n)
	}
	if n := strings.Count(s.logs.String(), "login environment not captured"); n != 1 {
		t.Errorf("the failure was logged %d times, want once:\n%s", n, s.logs.String())
	}
}

// A session's login environments go when it ends.
func TestLoginEnvsDroppedAtSessionEnd(t *testing.T) {
	var l loginEnvs
	done := make(chan struct{})
	call := &tool.Call{SessionID: "s1", SessionDone: done}
	env, err := l.forCall(t.Context(), call, &tool.CommandConfig{}, "", t.TempDir(), append(os.Environ(), "HOME="+t.TempDir()))
	if err != nil || env == nil {
		t.Fatalf("env %v err %v", env, err)
	}
	if n := l.count(); n != 1 {
		t.Fatalf("%d sessions keep login environments, want 1", n)
	}
	close(done)
	deadline := time.Now().Add(10 * time.Second)
	for l.count() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the ended session's login environments are still kept")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// count is how many sessions keep login environments.
func (l *loginEnvs) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sessions)
}
