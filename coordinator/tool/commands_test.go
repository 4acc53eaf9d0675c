package tool_test

import (
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
)

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"API_KEY": true, "aws_secret_access_key": true, "GITHUB_TOKEN": true, "PGPASSWORD": true,
		"MYSQL_PASSWD": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "SSH_AUTH_SOCK": false,
		"PATH": false, "HOME": false, "GOPATH": false, "TOOLGATE_TOKEN": true,
	} {
		t.Run(name, func(t *testing.T) {
			if got := tool.SecretName(name); got != want {
				t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
			}
		})
	}
}

func TestChildEnv(t *testing.T) {
	cfg := tool.CommandConfig{
		Environ: func() []string {
			return []string{"PATH=/bin", "TOOLGATE_TOKEN=t", "A_KEY=1", "B_KEY=2", "NOEQUALS", "PAGER=less"}
		},
		PassEnv: []string{"B_*", "TOOLGATE_TOKEN"},
		Env:     map[string]string{"EXTRA": "x", "PATH": "/usr/bin"},
	}
	got := cfg.ChildEnv()
	want := []string{"B_KEY=2", "EXTRA=x", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "PAGER=less", "PATH=/usr/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("ChildEnv() = %q, want %q", got, want)
	}
}

// ChildEnv keeps its last result while the environment and the settings
// stay the same; a change to any of them, even in the same slice or map,
// gives the new environment, and a caller changing its result changes
// nobody else's.
func TestChildEnvFollowsChanges(t *testing.T) {
	environ := []string{"PATH=/bin", "A_KEY=1"}
	cfg := tool.CommandConfig{Environ: func() []string { return environ }, Env: map[string]string{"EXTRA": "x"}}
	base := []string{"GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "PAGER=cat"}
	check := func(step string, want ...string) {
		t.Helper()
		want = append(slices.Clone(base), want...)
		slices.Sort(want)
		got := cfg.ChildEnv()
		if !slices.Equal(got, want) {
			t.Errorf("%s: ChildEnv() = %q, want %q", step, got, want)
		}
		got[0] = "CHANGED=1" // the caller's own copy
		_ = append(got[:1], "APPENDED=1")
	}
	check("first", "EXTRA=x", "PATH=/bin")
	check("again", "EXTRA=x", "PATH=/bin")
	environ[0] = "PATH=/usr/bin" // same slice, new value
	check("environment changed in place", "EXTRA=x", "PATH=/usr/bin")
	cfg.Env["EXTRA"] = "y" // same map, new value
	check("Env changed in place", "EXTRA=y", "PATH=/usr/bin")
	cfg.PassEnv = []string{"A_*"}
	check("PassEnv set", "A_KEY=1", "EXTRA=y", "PATH=/usr/bin")
	environ = append(environ, "B=2")
	check("variable added", "A_KEY=1", "B=2", "EXTRA=y", "PATH=/usr/bin")
}

func TestCommandTimeout(t *testing.T) {
	def := tool.CommandConfig{}
	set := tool.CommandConfig{DefaultTimeoutSeconds: 5, LongTimeoutSeconds: 50, MaxTimeoutSeconds: 60}
	for _, tc := range []struct {
		name string
		cfg  tool.CommandConfig
		req  int
		long bool
		want time.Duration
	}{
		{"default", def, 0, false, 30 * time.Second},
		{"default long", def, 0, true, 300 * time.Second},
		{"requested", def, 7, true, 7 * time.Second},
		{"configured", set, 0, false, 5 * time.Second},
		{"configured long", set, 0, true, 50 * time.Second},
		{"capped", set, 1000, false, 60 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.Timeout(tc.req, tc.long); got != tc.want {
				t.Errorf("Timeout(%d, %v) = %s, want %s", tc.req, tc.long, got, tc.want)
			}
		})
	}
}

// ChildEnvFor puts a dialect's variables over the server's environment
// and under the configured Env; ChildEnv, the same configuration with no
// dialect's, stays without them, however the two alternate.
func TestChildEnvFor(t *testing.T) {
	cfg := tool.CommandConfig{
		Environ: func() []string { return []string{"PATH=/bin", "LANG=en_US.UTF-8", "NO_COLOR=", "TERM=xterm"} },
		Env:     map[string]string{"LC_ALL": "de_DE.UTF-8"},
	}
	dialect := map[string]string{"NO_COLOR": "1", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "CODEX_CI": "1"}
	plain := []string{"GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "LANG=en_US.UTF-8", "LC_ALL=de_DE.UTF-8", "NO_COLOR=", "PAGER=cat", "PATH=/bin", "TERM=xterm"}
	with := []string{"CODEX_CI=1", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "LANG=C.UTF-8", "LC_ALL=de_DE.UTF-8", "NO_COLOR=1", "PAGER=cat", "PATH=/bin", "TERM=xterm"}
	for i := range 2 {
		if got := cfg.ChildEnvFor(dialect); !slices.Equal(got, with) {
			t.Errorf("round %d: ChildEnvFor(dialect) = %q, want %q", i, got, with)
		}
		if got := cfg.ChildEnv(); !slices.Equal(got, plain) {
			t.Errorf("round %d: ChildEnv() = %q, want %q", i, got, plain)
		}
	}
	dialect["CODEX_CI"] = "2" // same map, new value
	if got := cfg.ChildEnvFor(dialect); !slices.Contains(got, "CODEX_CI=2") {
		t.Errorf("ChildEnvFor after a change = %q, want CODEX_CI=2", got)
	}
}
